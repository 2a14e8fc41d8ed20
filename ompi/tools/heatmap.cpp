// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// heatmap.cpp - SVG and PNG heatmaps of the same picture, and a minimal PNG encoder.
//
// PNG (ISO/IEC 15948): signature, IHDR (8-bit RGB), one IDAT holding a zlib stream (RFC 1950:
// header 78 01, deflate data, Adler-32), IEND; every chunk with its CRC-32. The deflate data
// (RFC 1951) is one block with the fixed Huffman codes; the compressor emits, greedily, the longer
// of two matches — the pixel before (runs of one colour) and the pixel above (rows repeat in a
// heatmap's cells) — or a literal. Heatmaps compress to a few percent.
#include "heatmap.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cloudaware_plan {

namespace {

constexpr int kPanelSize = 512;
constexpr int kPanelTop = 50;
constexpr int kBarTop = kPanelTop + kPanelSize + 14;  // colour scale under the panel
constexpr int kBarHeight = 16;

int panel_left(size_t i) { return 20 + static_cast<int>(i) * 550; }

struct Rgb {
    uint8_t r, g, b;
};

// White (0) to dark blue (1), as the SVG has always drawn it.
Rgb colour(double f)
{
    if (f < 0) {
        return {255, 255, 255};
    }
    const int shade = static_cast<int>(255 - 215 * std::min(1.0, f));
    return {static_cast<uint8_t>(shade), static_cast<uint8_t>(shade), 255};
}

void write_file(const std::string &path, const std::string &data)
{
    std::ofstream f(path, std::ios::binary);
    f << data;
    f.close();
    if (!f) {
        throw std::runtime_error(path + ": cannot write");
    }
}

std::string xml_escape(const std::string &s)
{
    std::string o;
    for (char c : s) {
        if (c == '<') {
            o += "&lt;";
        } else if (c == '>') {
            o += "&gt;";
        } else if (c == '&') {
            o += "&amp;";
        } else {
            o += c;
        }
    }
    return o;
}

// ---- PNG ----------------------------------------------------------------------------------------

uint32_t crc32(const uint8_t *p, size_t n, uint32_t crc = 0)
{
    static uint32_t table[256];
    static bool ready = false;
    if (!ready) {
        for (uint32_t i = 0; i < 256; ++i) {
            uint32_t c = i;
            for (int k = 0; k < 8; ++k) {
                c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            }
            table[i] = c;
        }
        ready = true;
    }
    crc = ~crc;
    for (size_t i = 0; i < n; ++i) {
        crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    }
    return ~crc;
}

uint32_t adler32(const uint8_t *p, size_t n)
{
    uint32_t a = 1, b = 0;
    while (n > 0) {
        const size_t chunk = std::min<size_t>(n, 5552);  // no overflow before the modulo
        for (size_t i = 0; i < chunk; ++i) {
            a += p[i];
            b += a;
        }
        a %= 65521;
        b %= 65521;
        p += chunk;
        n -= chunk;
    }
    return (b << 16) | a;
}

// Deflate's bit stream: values LSB first; Huffman codes MSB first.
class BitWriter {
public:
    explicit BitWriter(std::string &out) : out_(out) {}
    void bits(uint32_t v, int n)
    {
        acc_ |= static_cast<uint64_t>(v) << nacc_;
        nacc_ += n;
        while (nacc_ >= 8) {
            out_ += static_cast<char>(acc_ & 0xFF);
            acc_ >>= 8;
            nacc_ -= 8;
        }
    }
    void code(uint32_t c, int n)
    {
        uint32_t r = 0;
        for (int i = 0; i < n; ++i) {
            r = (r << 1) | ((c >> i) & 1);
        }
        bits(r, n);
    }
    void flush()
    {
        if (nacc_ > 0) {
            out_ += static_cast<char>(acc_ & 0xFF);
        }
        acc_ = 0;
        nacc_ = 0;
    }

private:
    std::string &out_;
    uint64_t acc_ = 0;
    int nacc_ = 0;
};

// The fixed literal/length code of RFC 1951 3.2.6.
void fixed_symbol(BitWriter &w, int sym)
{
    if (sym < 144) {
        w.code(0x30 + sym, 8);
    } else if (sym < 256) {
        w.code(0x190 + sym - 144, 9);
    } else if (sym < 280) {
        w.code(sym - 256, 7);
    } else {
        w.code(0xC0 + sym - 280, 8);
    }
}

void fixed_match(BitWriter &w, int len, int dist)
{
    static const int lbase[] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    static const int lextra[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    static const int dbase[] = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
    static const int dextra[] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
    int li = 28;
    while (lbase[li] > len) {
        --li;
    }
    fixed_symbol(w, 257 + li);
    w.bits(static_cast<uint32_t>(len - lbase[li]), lextra[li]);
    int di = 29;
    while (dbase[di] > dist) {
        --di;
    }
    w.code(static_cast<uint32_t>(di), 5);
    w.bits(static_cast<uint32_t>(dist - dbase[di]), dextra[di]);
}

// Deflate with matches at the two given distances only.
std::string deflate_fixed(const std::vector<uint8_t> &in, int d1, int d2)
{
    std::string out;
    BitWriter w(out);
    w.bits(1, 1);  // BFINAL
    w.bits(1, 2);  // BTYPE 01: fixed Huffman codes
    const size_t n = in.size();
    size_t i = 0;
    while (i < n) {
        int best = 0, bestd = 0;
        for (int d : {d1, d2}) {
            if (d <= 0 || static_cast<size_t>(d) > i || d > 32768) {
                continue;
            }
            const size_t lim = std::min<size_t>(258, n - i);
            size_t l = 0;
            while (l < lim && in[i + l] == in[i + l - d]) {
                ++l;
            }
            if (static_cast<int>(l) > best) {
                best = static_cast<int>(l);
                bestd = d;
            }
        }
        if (best >= 3) {
            fixed_match(w, best, bestd);
            i += static_cast<size_t>(best);
        } else {
            fixed_symbol(w, in[i]);
            ++i;
        }
    }
    fixed_symbol(w, 256);  // end of block
    w.flush();
    return out;
}

void put32(std::string &s, uint32_t v)
{
    s += static_cast<char>(v >> 24);
    s += static_cast<char>((v >> 16) & 0xFF);
    s += static_cast<char>((v >> 8) & 0xFF);
    s += static_cast<char>(v & 0xFF);
}

void chunk(std::string &png, const char *type, const std::string &data)
{
    put32(png, static_cast<uint32_t>(data.size()));
    std::string td = std::string(type, 4) + data;
    png += td;
    put32(png, crc32(reinterpret_cast<const uint8_t *>(td.data()), td.size()));
}

// ---- a raster with a 3x5 pixel font -------------------------------------------------------------

struct Canvas {
    int w, h;
    std::vector<uint8_t> px;
    Canvas(int w_, int h_) : w(w_), h(h_), px(static_cast<size_t>(w_) * h_ * 3, 255) {}
    void fill(int x0, int y0, int x1, int y1, Rgb c)
    {
        x0 = std::max(x0, 0);
        y0 = std::max(y0, 0);
        x1 = std::min(x1, w);
        y1 = std::min(y1, h);
        for (int y = y0; y < y1; ++y) {
            for (int x = x0; x < x1; ++x) {
                uint8_t *p = &px[(static_cast<size_t>(y) * w + x) * 3];
                p[0] = c.r;
                p[1] = c.g;
                p[2] = c.b;
            }
        }
    }
    // Text in capitals, 2x scaled 3x5 glyphs (8 pixels per character); other characters blank.
    void text(int x, int y, const std::string &s)
    {
        static const struct {
            char c;
            uint8_t rows[5];
        } font[] = {
            {'0', {7, 5, 5, 5, 7}}, {'1', {2, 6, 2, 2, 7}}, {'2', {7, 1, 7, 4, 7}},
            {'3', {7, 1, 7, 1, 7}}, {'4', {5, 5, 7, 1, 1}}, {'5', {7, 4, 7, 1, 7}},
            {'6', {7, 4, 7, 5, 7}}, {'7', {7, 1, 1, 1, 1}}, {'8', {7, 5, 7, 5, 7}},
            {'9', {7, 5, 7, 1, 7}}, {'A', {2, 5, 7, 5, 5}}, {'B', {6, 5, 6, 5, 6}},
            {'C', {3, 4, 4, 4, 3}}, {'D', {6, 5, 5, 5, 6}}, {'E', {7, 4, 6, 4, 7}},
            {'F', {7, 4, 6, 4, 4}}, {'G', {3, 4, 5, 5, 3}}, {'H', {5, 5, 7, 5, 5}},
            {'I', {7, 2, 2, 2, 7}}, {'J', {1, 1, 1, 5, 2}}, {'K', {5, 5, 6, 5, 5}},
            {'L', {4, 4, 4, 4, 7}}, {'M', {5, 7, 7, 5, 5}}, {'N', {6, 5, 5, 5, 5}},
            {'O', {2, 5, 5, 5, 2}}, {'P', {6, 5, 6, 4, 4}}, {'Q', {2, 5, 5, 6, 3}},
            {'R', {6, 5, 6, 5, 5}}, {'S', {3, 4, 2, 1, 6}}, {'T', {7, 2, 2, 2, 2}},
            {'U', {5, 5, 5, 5, 7}}, {'V', {5, 5, 5, 5, 2}}, {'W', {5, 5, 7, 7, 5}},
            {'X', {5, 5, 2, 5, 5}}, {'Y', {5, 5, 2, 2, 2}}, {'Z', {7, 1, 2, 4, 7}},
            {'.', {0, 0, 0, 0, 2}}, {',', {0, 0, 0, 2, 4}}, {'-', {0, 0, 7, 0, 0}},
            {'+', {0, 2, 7, 2, 0}}, {'/', {1, 1, 2, 4, 4}}, {'(', {1, 2, 2, 2, 1}},
            {')', {4, 2, 2, 2, 4}}, {'=', {0, 7, 0, 7, 0}}, {':', {0, 2, 0, 2, 0}},
            {';', {0, 2, 0, 2, 4}}, {'_', {0, 0, 0, 0, 7}},
        };
        const Rgb ink{0, 0, 0};
        for (char ch : s) {
            const char u = (ch >= 'a' && ch <= 'z') ? static_cast<char>(ch - 'a' + 'A') : ch;
            for (const auto &g : font) {
                if (g.c != u) {
                    continue;
                }
                for (int r = 0; r < 5; ++r) {
                    for (int c = 0; c < 3; ++c) {
                        if (g.rows[r] & (4 >> c)) {
                            fill(x + 2 * c, y + 2 * r, x + 2 * c + 2, y + 2 * r + 2, ink);
                        }
                    }
                }
            }
            x += 8;
        }
    }
};

}  // namespace

std::string encode_png(int width, int height, const std::vector<uint8_t> &rgb)
{
    if (width < 1 || height < 1 || rgb.size() != static_cast<size_t>(width) * height * 3) {
        throw std::invalid_argument("encode_png: the pixels do not match the size");
    }
    // Scanlines, each behind filter type 0 (none).
    const size_t stride = static_cast<size_t>(width) * 3 + 1;
    std::vector<uint8_t> raw(stride * height);
    for (int y = 0; y < height; ++y) {
        raw[y * stride] = 0;
        std::copy(rgb.begin() + static_cast<long>(y * (stride - 1)),
                  rgb.begin() + static_cast<long>((y + 1) * (stride - 1)), raw.begin() + static_cast<long>(y * stride + 1));
    }
    std::string z = "\x78\x01";  // deflate, 32 KiB window; (0x78 * 256 + 0x01) % 31 == 0
    z += deflate_fixed(raw, 3, stride <= 32768 ? static_cast<int>(stride) : 0);
    put32(z, adler32(raw.data(), raw.size()));

    std::string png("\x89PNG\r\n\x1a\n", 8);
    std::string ihdr;
    put32(ihdr, static_cast<uint32_t>(width));
    put32(ihdr, static_cast<uint32_t>(height));
    ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8 bits, RGB, deflate, adaptive, no interlace
    chunk(png, "IHDR", ihdr);
    chunk(png, "IDAT", z);
    chunk(png, "IEND", "");
    return png;
}

void write_heatmap_png(const std::vector<HeatPanel> &panels, const std::string &path)
{
    Canvas cv(kHeatWidth, kHeatHeight);
    for (size_t p = 0; p < panels.size(); ++p) {
        const HeatPanel &hp = panels[p];
        const int x0 = panel_left(p);
        cv.text(x0, 24, hp.title);
        for (int i = 0; i < hp.cells; ++i) {
            const int ya = kPanelTop + i * kPanelSize / hp.cells;
            const int yb = kPanelTop + (i + 1) * kPanelSize / hp.cells;
            for (int j = 0; j < hp.cells; ++j) {
                const int xa = x0 + j * kPanelSize / hp.cells;
                const int xb = x0 + (j + 1) * kPanelSize / hp.cells;
                cv.fill(xa, ya, xb, yb, colour(hp.f[static_cast<size_t>(i) * hp.cells + j]));
            }
        }
        for (int x = 0; x < kPanelSize; ++x) {
            cv.fill(x0 + x, kBarTop, x0 + x + 1, kBarTop + kBarHeight, colour(x / (kPanelSize - 1.0)));
        }
        cv.text(x0, kBarTop + kBarHeight + 6, hp.lo_label);
        cv.text(x0 + kPanelSize - 8 * static_cast<int>(hp.hi_label.size()), kBarTop + kBarHeight + 6,
                hp.hi_label);
    }
    write_file(path, encode_png(cv.w, cv.h, cv.px));
}

void write_heatmap_svg(const std::vector<HeatPanel> &panels, const std::string &path)
{
    std::ostringstream os;
    os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kHeatWidth << "\" height=\""
       << kHeatHeight << "\" font-family=\"sans-serif\" font-size=\"14\">\n";
    for (size_t p = 0; p < panels.size(); ++p) {
        const HeatPanel &hp = panels[p];
        const int x0 = panel_left(p);
        const double cell = static_cast<double>(kPanelSize) / hp.cells;
        os << "<text x=\"" << x0 << "\" y=\"30\">" << xml_escape(hp.title) << "</text>\n";
        for (int i = 0; i < hp.cells; ++i) {
            for (int j = 0; j < hp.cells; ++j) {
                const Rgb c = colour(hp.f[static_cast<size_t>(i) * hp.cells + j]);
                os << "<rect x=\"" << x0 + j * cell << "\" y=\"" << kPanelTop + i * cell
                   << "\" width=\"" << cell << "\" height=\"" << cell << "\" fill=\"rgb("
                   << int(c.r) << "," << int(c.g) << "," << int(c.b) << ")\"/>\n";
            }
        }
        // the colour scale: 64 steps from the low end to the high end
        for (int s = 0; s < 64; ++s) {
            const Rgb c = colour(s / 63.0);
            os << "<rect x=\"" << x0 + s * kPanelSize / 64.0 << "\" y=\"" << kBarTop << "\" width=\""
               << kPanelSize / 64.0 << "\" height=\"" << kBarHeight << "\" fill=\"rgb(" << int(c.r)
               << "," << int(c.g) << "," << int(c.b) << ")\"/>\n";
        }
        os << "<text x=\"" << x0 << "\" y=\"" << kBarTop + kBarHeight + 18 << "\">"
           << xml_escape(hp.lo_label) << "</text>\n";
        os << "<text x=\"" << x0 + kPanelSize << "\" y=\"" << kBarTop + kBarHeight + 18
           << "\" text-anchor=\"end\">" << xml_escape(hp.hi_label) << "</text>\n";
    }
    os << "</svg>\n";
    write_file(path, os.str());
}

}  // namespace cloudaware_plan
