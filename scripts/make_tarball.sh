#!/usr/bin/env bash
# Wrap the one-folder bundle as a Linux tarball with a desktop entry and an icon.
#   scripts/make_tarball.sh [BUNDLE_DIR] [OUT_DIR]     (make installer-tarball)
# -> OUT_DIR/ClueStudio-<version>-linux-<arch>.tar.gz, one top folder of that name holding
#    ClueStudio, _internal/, cluestudio.png, cluestudio.desktop, install-desktop-entry.sh
#    and README.txt.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUNDLE=${1:-$ROOT/dist/ClueStudio}
OUT=${2:-$ROOT/dist}
if [ ! -x "$BUNDLE/ClueStudio" ]; then
    echo "make_tarball: no bundle at $BUNDLE (run 'make installer' first)" >&2
    exit 2
fi
VERSION=$("$BUNDLE/ClueStudio" --version | awk '{print $2}')
NAME="ClueStudio-$VERSION-linux-$(uname -m)"
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
cp "$ROOT/packaging/cluestudio.png" "$ROOT/packaging/cluestudio.desktop" \
   "$ROOT/packaging/install-desktop-entry.sh" "$STAGE/"
sed "s|@VERSION@|$VERSION|" "$ROOT/packaging/README.txt" > "$STAGE/README.txt"
mkdir -p "$OUT"
# One pass, no copy of the (large) bundle: both folders are renamed into $NAME/ on the fly.
tar --owner=0 --group=0 --numeric-owner --sort=name \
    --transform "s|^\./|$NAME/|" \
    -C "$BUNDLE" -cf - ./ClueStudio ./_internal -C "$STAGE" . \
    | gzip -6 > "$OUT/$NAME.tar.gz"
echo "$OUT/$NAME.tar.gz: $(du -h "$OUT/$NAME.tar.gz" | cut -f1)"
