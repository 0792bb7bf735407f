#!/bin/sh
# The Go module on its own (docs/go.md): the module as it is published
# (scripts/amalgamate --go-module: bindings/go with its copy of the single
# header), and nothing else of the llmlat tree, builds and passes go vet
# and go test with -tags llmlat_single; a program of another module uses
# it through a replace directive, then through `go mod vendor` with the
# copy gone.
#
#   module_alone.sh SOURCE_ROOT
#
# The program is the README's Go example; it must print what the README
# says. Runs offline (GOPROXY=off): the module has no dependencies.
set -eu
src=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/llmlat-go.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
export GOPROXY=off GOFLAGS=-mod=mod GOENV=off GOTOOLCHAIN=local CGO_ENABLED=1
# No way to the library but the copy: no pkg-config file, no library path.
export PKG_CONFIG_LIBDIR="$tmp/no-pkgconfig" PKG_CONFIG_PATH=
unset LD_LIBRARY_PATH CGO_CFLAGS CGO_LDFLAGS
step() { printf '\n== %s\n' "$*"; }

python3 "$src/scripts/amalgamate" --root "$src" --go-module "$tmp/llmlat-go"
[ -s "$tmp/llmlat-go/llmlat/llmlat_single.h" ] || { echo "module_alone.sh: no llmlat_single.h" >&2; exit 1; }
module=$(sed -n 's/^module //p' "$tmp/llmlat-go/go.mod")

step "the copy alone: go vet and go test -tags llmlat_single"
(cd "$tmp/llmlat-go" && go vet -tags llmlat_single ./... && go test -count=1 -tags llmlat_single ./...)

step "another module, with a replace directive: the README's example"
mkdir "$tmp/app"
awk '/^`main.go`:/ { f = 1; next } f && /^```go/ { g = 1; next } g && /^```/ { exit } g' \
    "$src/README.md" > "$tmp/app/main.go"
expected=$(sed -n 's/^It prints `\(.*\)`\..*/\1/p' "$src/README.md")
if [ ! -s "$tmp/app/main.go" ] || [ -z "$expected" ]; then
    echo "module_alone.sh: README.md has no \`main.go\`: block or no 'It prints \`...\`' line" >&2
    exit 1
fi
cd "$tmp/app"
go mod init example.com/app >/dev/null 2>&1
go mod edit -require="$module@v0.0.0" -replace="$module=../llmlat-go"
go build -tags llmlat_single -o app .
out=$(./app)
if [ "$out" != "$expected" ]; then
    echo "module_alone.sh: the README's program prints '$out', the README says '$expected'" >&2
    exit 1
fi
echo "$out"

step "go mod vendor, then build from vendor/ with the copy gone"
go mod vendor
mv "$tmp/llmlat-go" "$tmp/gone"
rm -f app
go build -mod=vendor -tags llmlat_single -o app .
out=$(./app)
[ "$out" = "$expected" ] || { echo "module_alone.sh: vendored build prints '$out'" >&2; exit 1; }
echo "$out"
echo "module_alone.sh: the Go module builds, vets, tests and vendors on its own"
