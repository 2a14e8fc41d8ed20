#!/usr/bin/env perl
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# Regenerates the build system (configure, Makefile.in) from configure.ac, Makefile.am and config/*.m4.
use strict;
use warnings;
use File::Basename qw(dirname);
use Cwd qw(abs_path);

chdir(dirname(abs_path($0))) or die "autogen.pl: cannot enter the source tree: $!\n";
for my $tool (qw(autoreconf libtoolize pkg-config)) {
    system("sh", "-c", "command -v $tool >/dev/null 2>&1") == 0
        or die "autogen.pl: '$tool' not found (Debian: apt-get install autoconf automake libtool pkg-config)\n";
}
mkdir "config/build-aux" unless -d "config/build-aux";
print "autogen.pl: running autoreconf --install --force\n";
system("autoreconf", "--install", "--force", "-Wall,no-portability") == 0
    or die "autogen.pl: autoreconf failed\n";
print "autogen.pl: done; now run ./configure\n";
