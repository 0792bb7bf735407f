#!/bin/sh
# Applies llmlat-metrics.patch to a llama.cpp source tree (commit 80fb11a)
# and vendors llmlat's single header as tools/server/llmlat.h. The header is
# copied, not carried in the patch: single/llmlat.h is generated and
# committed in this repository (docs/single-header.md), and a copy inside
# the patch would be 850 KB that goes stale with every change to lib/.
#
#   examples/llama.cpp/apply.sh LLAMA_CPP_DIR
#
# Run it again after a change to the patch's llmlat (a new single header):
# an applied patch is left as it is, and the header is copied only when it
# differs, so an unchanged tree rebuilds nothing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tree=${1:?usage: apply.sh LLAMA_CPP_DIR}
patch=$here/llmlat-metrics.patch
header=$here/../../single/llmlat.h

if git -C "$tree" apply --reverse --check "$patch" 2>/dev/null; then
    echo "apply.sh: llmlat-metrics.patch is already applied to $tree"
else
    git -C "$tree" apply "$patch"
    echo "apply.sh: applied llmlat-metrics.patch to $tree"
fi
if ! cmp -s "$header" "$tree/tools/server/llmlat.h"; then
    cp "$header" "$tree/tools/server/llmlat.h"
    echo "apply.sh: copied single/llmlat.h to $tree/tools/server/llmlat.h"
fi
