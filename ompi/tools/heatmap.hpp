// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// heatmap.hpp - `cloudaware-plan show --heatmap`: panels of cells drawn as SVG or PNG (the PNG
// with its own encoder: deflate with fixed Huffman codes, no library).
#ifndef CLOUDAWARE_HEATMAP_HPP
#define CLOUDAWARE_HEATMAP_HPP

#include <cstdint>
#include <string>
#include <vector>

namespace cloudaware_plan {

// One square heatmap: cells x cells values in [0, 1] on the colour scale (row-major, row =
// sender), or < 0 for an empty cell (the diagonal of a single node); drawn white to dark blue.
struct HeatPanel {
    std::string title;
    std::string lo_label, hi_label;  // the ends of the colour scale
    int cells = 0;
    std::vector<double> f;
};

// The picture: panels side by side, each 512 x 512 pixels with its title above and its colour
// scale (lo_label .. hi_label) below. Throws std::runtime_error if the file cannot be written.
constexpr int kHeatWidth = 1100;
constexpr int kHeatHeight = 640;
void write_heatmap_svg(const std::vector<HeatPanel> &panels, const std::string &path);
void write_heatmap_png(const std::vector<HeatPanel> &panels, const std::string &path);

// The PNG encoder on its own: 8-bit RGB rows (width * 3 bytes each) into a complete PNG file.
std::string encode_png(int width, int height, const std::vector<uint8_t> &rgb);

}  // namespace cloudaware_plan
#endif
