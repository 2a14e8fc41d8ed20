// Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// tree.cpp - Algorithm 4 (construct by distance; split the largest / merge the two smallest).
#include "tree.hpp"

#include "error.hpp"

#include <algorithm>
#include <numeric>

namespace cacore {
namespace {

SubTree singleton(int node) { return SubTree{{node}, {-1}}; }

void attach(SubTree &t, int at_index, const SubTree &s)
{
    const int off = t.size();
    for (int i = 0; i < s.size(); ++i) {
        t.node.push_back(s.node[i]);
        t.par.push_back(i == 0 ? at_index : s.par[i] + off);
    }
}

std::vector<int> sizes(const SubTree &t)
{
    std::vector<int> sz(t.size(), 1);
    // children always come after their parent in `node` order
    for (int i = t.size() - 1; i > 0; --i) {
        sz[t.par[i]] += sz[i];
    }
    return sz;
}

// Splits off the biggest child subtree of the root.
std::pair<SubTree, SubTree> split(const SubTree &t)
{
    auto sz = sizes(t);
    int best = -1;
    for (int i = 1; i < t.size(); ++i) {
        if (t.par[i] == 0 && (best < 0 || sz[i] > sz[best])) {
            best = i;
        }
    }
    std::vector<bool> in_b(t.size(), false);
    for (int i = 1; i < t.size(); ++i) {
        in_b[i] = i == best || (t.par[i] > 0 && in_b[t.par[i]]);
    }
    SubTree a, b;
    std::vector<int> map(t.size(), -1);
    for (int i = 0; i < t.size(); ++i) {
        SubTree &dst = in_b[i] ? b : a;
        map[i] = dst.size();
        dst.node.push_back(t.node[i]);
        dst.par.push_back(i == best || i == 0 ? -1 : map[t.par[i]]);
    }
    return {a, b};
}

void reroot_at(SubTree &t, int node)
{
    // Swap the labels of the root and `node` (both in the same group, so the shape stays sound).
    auto it = std::find(t.node.begin(), t.node.end(), node);
    std::iter_swap(t.node.begin(), it);
}

}  // namespace

void adjust_down(std::vector<SubTree> &down, int up, const LinkFn &link)
{
    while (static_cast<int>(down.size()) < up) {
        int big = -1;
        for (size_t i = 0; i < down.size(); ++i) {
            if (down[i].size() > 1 && (big < 0 || down[i].size() > down[big].size())) {
                big = static_cast<int>(i);
            }
        }
        if (big < 0) {
            break;  // only single nodes left
        }
        auto parts = split(down[big]);
        down[big] = std::move(parts.first);
        down.push_back(std::move(parts.second));
    }
    while (static_cast<int>(down.size()) > up && down.size() > 1) {
        std::vector<size_t> idx(down.size());
        std::iota(idx.begin(), idx.end(), 0);
        std::stable_sort(idx.begin(), idx.end(),
                         [&](size_t a, size_t b) { return down[a].size() < down[b].size(); });
        size_t a = idx[0], b = idx[1];
        // The root with the better link to the other becomes the child.
        if (link(down[b].node[0], down[a].node[0]) < link(down[a].node[0], down[b].node[0])) {
            std::swap(a, b);
        }
        // now down[a] goes below down[b]
        attach(down[b], 0, down[a]);
        down.erase(down.begin() + static_cast<long>(a));
    }
}

namespace {

// The tree over the level-`top` group of root.
SubTree build(const Hierarchy &h, int root, int top, const LinkFn &link)
{
    SubTree t = singleton(root);
    for (int lvl = 1; lvl <= top; ++lvl) {
        const Group &g = h.group(lvl, h.group_of(lvl, root));
        const int own = h.group_of(lvl - 1, root);
        std::vector<SubTree> down;
        for (int c : g.children) {
            if (c == own) {
                continue;
            }
            const Group &cg = h.group(lvl - 1, c);
            down.push_back(build(h, cg.leader, lvl - 1, link));
        }
        if (down.empty()) {
            continue;
        }
        if (t.size() == 1 && down.size() > 1) {
            // Only the root is up: merging DOWN into one subtree below it would add a
            // store-and-forward level. Merge the root's own tree along (the two smallest trees
            // first; the root always stays on top), which gives a binomial-shaped tree.
            while (!down.empty()) {
                std::stable_sort(down.begin(), down.end(),
                                 [](const SubTree &a, const SubTree &b) { return a.size() < b.size(); });
                SubTree &a = down[0];
                if (t.size() <= down[std::min<size_t>(1, down.size() - 1)].size() || down.size() == 1) {
                    // the root's tree is among the two smallest: the smallest subtree joins it
                    int d = a.node[0];
                    double best = link(d, t.node[0]);
                    for (int x : a.node) {
                        if (link(x, t.node[0]) < best) {
                            best = link(x, t.node[0]);
                            d = x;
                        }
                    }
                    reroot_at(a, d);
                    attach(t, 0, a);
                    down.erase(down.begin());
                } else {
                    std::vector<SubTree> two{down[0], down[1]};
                    adjust_down(two, 1, link);
                    down.erase(down.begin(), down.begin() + 2);
                    down.push_back(std::move(two[0]));
                }
            }
            continue;
        }
        adjust_down(down, t.size(), link);
        std::stable_sort(down.begin(), down.end(),
                         [](const SubTree &a, const SubTree &b) { return a.size() > b.size(); });
        std::vector<bool> used(t.size(), false);
        const int up = t.size();
        for (auto &s : down) {
            int bu = -1, bd = -1;
            double best = 0;
            for (int u = 0; u < up; ++u) {
                if (used[u]) {
                    continue;
                }
                for (int d : s.node) {
                    double c = link(d, t.node[u]);
                    if (bu < 0 || c < best) {
                        best = c;
                        bu = u;
                        bd = d;
                    }
                }
            }
            if (bu < 0) {
                throw Error(CACORE_ERR_INTERNAL, "Algorithm 4: more subtrees than attachment points");
            }
            used[bu] = true;
            reroot_at(s, bd);
            attach(t, bu, s);
        }
    }
    return t;
}

}  // namespace

NodeTree build_node_tree(const Hierarchy &h, int root, const LinkFn &link)
{
    const int n = h.nodes();
    SubTree t = build(h, root, h.top(), link);
    NodeTree out;
    out.root = root;
    out.parent.assign(n, -1);
    out.children.assign(n, {});
    auto sz = sizes(t);
    std::vector<int> order(t.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return sz[a] > sz[b]; });
    for (int i : order) {
        if (t.par[i] >= 0) {
            out.parent[t.node[i]] = t.node[t.par[i]];
            out.children[t.node[t.par[i]]].push_back(t.node[i]);
        }
    }
    return out;
}

}  // namespace cacore
