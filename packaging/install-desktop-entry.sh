#!/bin/sh
# Add ClueStudio to the desktop's application menu (per user; no root needed), or remove it.
#   ./install-desktop-entry.sh            install, pointing at the folder this script is in
#   ./install-desktop-entry.sh --remove   take it out again
# The app folder itself stays where you unpacked it; move it first, then run this again.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=${XDG_DATA_HOME:-$HOME/.local/share}
ENTRY="$DATA/applications/cluestudio.desktop"
ICON="$DATA/icons/hicolor/512x512/apps/cluestudio.png"
if [ "${1:-}" = "--remove" ]; then
    rm -f "$ENTRY" "$ICON"
    echo "ClueStudio removed from the application menu (the app folder was not touched)."
    exit 0
fi
mkdir -p "$(dirname "$ENTRY")" "$(dirname "$ICON")"
cp "$HERE/cluestudio.png" "$ICON"
sed -e "s|@BUNDLE@|$HERE|g" -e "s|@ICON@|cluestudio|g" "$HERE/cluestudio.desktop" > "$ENTRY"
chmod 644 "$ENTRY"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$DATA/applications" || true
echo "ClueStudio added to the application menu: $ENTRY"
