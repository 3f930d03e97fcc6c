"""The plugin registry: metrics, converters, probes and importers found through entry points.

Every plugin, built-in or third-party, is an entry point in one of the groups of
:data:`GROUPS` whose value is ``"module:attr"``. What the plugin *is* (name, version, inputs,
dependencies, diagram kinds) comes from a static manifest file, ``cluestudio-plugin.toml``
(or ``.json``), inside the entry point's top-level package. The registry finds that file
with :func:`importlib.util.find_spec` on the top-level package, which locates the package
without executing it, so listing plugins never runs plugin code (docs/adr/0006). The code is
imported on first use; a plugin that fails to import, or raises while it works, is recorded
in its :class:`PluginStatus` and skipped, so one broken plugin never takes the app down.
"""

from __future__ import annotations

import importlib
import importlib.metadata as metadata
import importlib.util
import json
import logging
import math
import threading
import tomllib
import traceback
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.metrics import MetricManifest, MetricResult

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Entry-point group → plugin kind (``MetricManifest.kind`` says "metric" too).
GROUPS: dict[str, str] = {
    "cluestudio.metrics": "metric",
    "cluestudio.converters": "converter",
    "cluestudio.probes": "probe",
    "cluestudio.io": "io",
}
KINDS: tuple[str, ...] = tuple(GROUPS.values())
#: Plugin kind → its table in the manifest file, named like the group: ``[metrics.bleu]``.
TABLES: dict[str, str] = {kind: group.split(".", 1)[1] for group, kind in GROUPS.items()}
MANIFEST_FILES: tuple[str, ...] = ("cluestudio-plugin.toml", "cluestudio-plugin.json")

# Plugin states, in the words `cluestudio plugins` prints.
DISCOVERED = "discovered"  # manifest read, code not imported yet
LOADED = "loaded"  # code imported and ready
UNAVAILABLE = "unavailable"  # a package it needs is not installed; never imported
FAILED = "failed"  # import or construction failed; skipped from now on
ERROR = "error"  # loaded, but its last call raised; still offered
INVALID = "invalid"  # bad manifest or entry point; skipped


class PluginError(ClueStudioError):
    """A plugin that cannot be found, read or used (the message says which and why)."""


class PluginResultError(PluginError):
    """A metric returned something that is not a result: one failure for that pair only."""


def is_plugin_fault(error: BaseException) -> bool:
    """Whether ``error``, raised inside plugin code, is the plugin's failure (caught, recorded,
    and the batch goes on) rather than the user's. ``sys.exit`` in a plugin is a fault; a
    KeyboardInterrupt is one too, except on the main thread, where it is the user's Ctrl+C
    (signals reach only the main thread, so on a worker it can only come from the plugin)."""
    if isinstance(error, KeyboardInterrupt):
        return threading.current_thread() is not threading.main_thread()
    return isinstance(error, Exception | SystemExit)


def checked_metric_result(result: Any) -> MetricResult:
    """``result`` if it is a usable metric result, else :class:`PluginResultError`: values a
    dict of names to finite numbers (or None), an explanation that can be stored as JSON."""
    values = getattr(result, "values", None)
    if not isinstance(values, dict):
        raise PluginResultError(f"returned {type(result).__name__}, not a metric result")
    for key, value in values.items():
        if not isinstance(key, str):
            raise PluginResultError(f"value name {key!r} is not a string")
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise PluginResultError(f"value {key!r} is {value!r}, not a number")
        if not math.isfinite(value):
            raise PluginResultError(f"value {key!r} is {value!r}, not a finite number")
    try:
        json.dumps(getattr(result, "explanation", None))
        json.dumps(getattr(result, "details", None) or {})
    except (TypeError, ValueError) as error:
        raise PluginResultError(f"explanation cannot be stored: {error}") from None
    if isinstance(result, MetricResult):
        return result
    return MetricResult(dict(values), getattr(result, "explanation", None),
                        dict(getattr(result, "details", None) or {}))


@dataclass(frozen=True)
class PluginManifest:
    """What a plugin declares about itself, read without importing it."""

    kind: str  # one of KINDS
    name: str  # the entry-point name, unique within its kind
    entry: str  # "module:attr"
    version: str = ""
    title: str = ""
    description: str = ""
    inputs: tuple[str, ...] = ()  # e.g. "plantuml", "diagram", "image", "source", "llm"
    optional_dependencies: tuple[str, ...] = ()  # import names beyond ClueStudio's own
    diagram_kinds: tuple[str, ...] = ("*",)  # "class", "component", "sysml", "code", "*"
    values: tuple[str, ...] = ()  # metric keys a metric reports, when known in advance
    distribution: str = ""
    distribution_version: str = ""
    manifest_path: str = ""  # "" when the plugin shipped no manifest file
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def applies_to(self, diagram_kind: str) -> bool:
        return "*" in self.diagram_kinds or diagram_kind in self.diagram_kinds

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (tuples become lists when dumped)."""
        return asdict(self)


@dataclass(frozen=True)
class PluginStatus:
    """Where one plugin stands; ``error`` says what went wrong in the user's words."""

    manifest: PluginManifest
    state: str = DISCOVERED
    error: str = ""
    detail: str = ""  # traceback text, for a bug report
    warnings: tuple[str, ...] = ()

    @property
    def usable(self) -> bool:
        return self.state in (DISCOVERED, LOADED, ERROR)

    def to_dict(self) -> dict[str, Any]:
        return {**self.manifest.to_dict(), "state": self.state, "error": self.error,
                "warnings": list(self.warnings)}


# --- static manifests ----------------------------------------------------------------------


def _str_tuple(value: Any, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise PluginError(f"manifest field {key!r} must be a list of strings, not {value!r}")


def read_manifest_file(path: Path) -> dict[str, Any]:
    """The parsed manifest file (TOML or JSON): table (``metrics``, …) → name → fields."""
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (OSError, ValueError) as error:  # TOMLDecodeError and JSONDecodeError are both
        raise PluginError(f"{path}: unreadable plugin manifest: {error}") from error
    if not isinstance(data, dict):
        raise PluginError(f"{path}: a plugin manifest must be a table")
    return data


def find_manifest_file(top_package: str) -> Path | None:
    """The manifest inside ``top_package``, located without executing the package.

    ``find_spec`` of a *top-level* name only asks the path finders; it imports nothing.
    """
    try:
        spec = importlib.util.find_spec(top_package)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    for folder in spec.submodule_search_locations or ():
        for filename in MANIFEST_FILES:
            candidate = Path(folder) / filename
            if candidate.is_file():
                return candidate
    return None


def manifest_from_fields(kind: str, name: str, entry: str, fields: dict[str, Any], *,
                         path: str = "", distribution: str = "",
                         distribution_version: str = "") -> PluginManifest:
    """Build a :class:`PluginManifest` from one manifest table, checking field types."""
    if not isinstance(fields, dict):
        raise PluginError(f"[{TABLES.get(kind, kind)}.{name}] must be a table")
    known = {"version", "title", "description", "inputs", "optional_dependencies",
             "diagram_kinds", "values", "entry"}
    declared_entry = fields.get("entry")
    if declared_entry and declared_entry != entry:
        raise PluginError(f"manifest says {kind} {name} is {declared_entry!r} but its entry "
                          f"point says {entry!r}")
    return PluginManifest(
        kind=kind, name=name, entry=entry,
        version=str(fields.get("version", distribution_version)),
        title=str(fields.get("title", name)),
        description=str(fields.get("description", "")),
        inputs=_str_tuple(fields.get("inputs"), "inputs"),
        optional_dependencies=_str_tuple(fields.get("optional_dependencies"),
                                         "optional_dependencies"),
        diagram_kinds=_str_tuple(fields.get("diagram_kinds", ["*"]), "diagram_kinds"),
        values=_str_tuple(fields.get("values"), "values"),
        distribution=distribution, distribution_version=distribution_version,
        manifest_path=path,
        extra={k: v for k, v in fields.items() if k not in known},
    )


def packaged_manifest(package: str, kind: str, name: str, entry: str = "") -> PluginManifest:
    """The manifest a plugin's own code can reuse as its class attribute (one source of truth).

    ``package`` is any module of the plugin (``__name__`` will do); its top-level package
    holds the manifest file.
    """
    top = package.split(".")[0]
    path = find_manifest_file(top)
    if path is None:
        raise PluginError(f"package {top!r} has no {MANIFEST_FILES[0]}")
    table = read_manifest_file(path).get(TABLES[kind], {})
    if not isinstance(table, dict) or name not in table:
        raise PluginError(f"{path}: no [{TABLES[kind]}.{name}] table")
    return manifest_from_fields(kind, name, entry or table[name].get("entry", ""),
                                table[name], path=str(path))


def metric_manifest(package: str, name: str) -> MetricManifest:
    """A metric's ``manifest`` class attribute, read from its package's manifest file."""
    static = packaged_manifest(package, "metric", name)
    return MetricManifest(
        name=static.name, version=static.version,
        inputs=static.inputs,  # type: ignore[arg-type]  # our vocabulary is wider than theirs
        optional_dependencies=static.optional_dependencies, values=static.values,
        description=static.description or static.title)


def missing_dependencies(manifest: PluginManifest) -> list[str]:
    """Declared dependencies that are not installed (checked with find_spec, no import)."""
    missing = []
    for dependency in manifest.optional_dependencies:
        top = dependency.split(".")[0]
        try:
            found = importlib.util.find_spec(top) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(dependency)
    return missing


def _status_for(entry_point: metadata.EntryPoint, kind: str) -> PluginStatus:
    """Read one entry point's manifest; never imports the plugin."""
    dist = getattr(entry_point, "dist", None)
    dist_name = dist.metadata["Name"] if dist is not None else ""
    dist_version = dist.version if dist is not None else ""
    bare = PluginManifest(kind=kind, name=entry_point.name, entry=entry_point.value,
                          distribution=dist_name or "", distribution_version=dist_version or "")
    if ":" not in entry_point.value:
        return PluginStatus(bare, INVALID, f"entry point {entry_point.value!r} is not "
                                           "'module:attr'")
    top = entry_point.value.split(":")[0].split(".")[0]
    path = find_manifest_file(top)
    if path is None:
        return PluginStatus(bare, DISCOVERED, warnings=(
            f"package {top!r} has no {MANIFEST_FILES[0]}; details appear after first use",))
    try:
        table = read_manifest_file(path).get(TABLES[kind], {})
        if not isinstance(table, dict) or entry_point.name not in table:
            return PluginStatus(bare, DISCOVERED, warnings=(
                f"{path} has no [{TABLES[kind]}.{entry_point.name}] table",))
        manifest = manifest_from_fields(kind, entry_point.name, entry_point.value,
                                        table[entry_point.name], path=str(path),
                                        distribution=bare.distribution,
                                        distribution_version=bare.distribution_version)
    except PluginError as error:
        return PluginStatus(bare, INVALID, str(error))
    missing = missing_dependencies(manifest)
    if missing:
        return PluginStatus(manifest, UNAVAILABLE,
                            f"needs {', '.join(missing)} (not installed)")
    return PluginStatus(manifest)


# --- the registry --------------------------------------------------------------------------


def _installed_entry_points(groups: Iterable[str]) -> list[metadata.EntryPoint]:
    found: list[metadata.EntryPoint] = []
    for group in groups:
        found.extend(metadata.entry_points(group=group))
    return found


class PluginRegistry:
    """Every plugin of :data:`GROUPS`, with its status; imports a plugin on first use only.

    ``entry_points`` replaces the installed ones (tests build a registry from a few
    hand-made :class:`importlib.metadata.EntryPoint` objects).
    """

    def __init__(self, entry_points: Iterable[metadata.EntryPoint] | None = None) -> None:
        points = (_installed_entry_points(GROUPS) if entry_points is None
                  else list(entry_points))
        self._lock = threading.RLock()
        self._status: dict[tuple[str, str], PluginStatus] = {}
        self._objects: dict[tuple[str, str], Any] = {}
        self._instances: dict[tuple[str, str], Any] = {}
        for point in points:
            kind = GROUPS.get(point.group)
            if kind is None:
                continue
            key = (kind, point.name)
            status = _status_for(point, kind)
            if key in self._status:
                # Two distributions claim one name: keep the first, report the second.
                first = self._status[key].manifest
                log.warning("plugin %s.%s defined twice (%s and %s)", kind, point.name,
                            first.entry, point.value)
                self._status[key] = replace(self._status[key], warnings=(
                    *self._status[key].warnings,
                    f"also defined by {status.manifest.distribution or point.value}; ignored"))
                continue
            self._status[key] = status

    # queries
    def statuses(self, kind: str | None = None) -> list[PluginStatus]:
        with self._lock:
            return [s for (k, _), s in sorted(self._status.items()) if kind in (None, k)]

    def status(self, kind: str, name: str) -> PluginStatus:
        with self._lock:
            try:
                return self._status[(kind, name)]
            except KeyError:
                raise PluginError(f"no {kind} plugin named {name!r}") from None

    def manifests(self, kind: str | None = None, diagram_kind: str | None = None,
                  ) -> list[PluginManifest]:
        """Manifests of the usable plugins (optionally those for one diagram kind)."""
        return [s.manifest for s in self.statuses(kind) if s.usable
                and (diagram_kind is None or s.manifest.applies_to(diagram_kind))]

    # loading
    def _record(self, key: tuple[str, str], state: str, error: BaseException | None) -> None:
        old = self._status[key]
        if error is None:
            self._status[key] = replace(old, state=state, error="", detail="")
            return
        text = f"{type(error).__name__}: {error}"
        log.info("plugin %s.%s: %s", *key, text)
        self._status[key] = replace(old, state=state, error=text,
                                    detail="".join(traceback.format_exception(error)))

    def load(self, kind: str, name: str) -> Any | None:
        """The plugin's object (usually a class), imported now if not yet; None if broken."""
        key = (kind, name)
        with self._lock:
            status = self.status(kind, name)
            if key in self._objects:
                return self._objects[key]
            if not status.usable:
                return None
            module_name, _, attr = status.manifest.entry.partition(":")
            try:
                obj: Any = importlib.import_module(module_name)
                for part in attr.split("."):
                    obj = getattr(obj, part)
            except BaseException as error:  # a plugin's import must never crash the app
                if not is_plugin_fault(error):
                    raise
                self._record(key, FAILED, error)
                return None
            self._objects[key] = obj
            self._record(key, LOADED, None)
            if not status.manifest.manifest_path:
                self._adopt_code_manifest(key, obj)
            return obj

    def _adopt_code_manifest(self, key: tuple[str, str], obj: Any) -> None:
        """Fill a file-less plugin's details from its class attribute ``manifest``."""
        declared = getattr(obj, "manifest", None)
        if declared is None:
            return
        old = self._status[key].manifest
        updates: dict[str, Any] = {}
        for name in ("version", "title", "description"):
            value = getattr(declared, name, None)
            if isinstance(value, str) and value:
                updates[name] = value
        for name in ("inputs", "optional_dependencies", "diagram_kinds", "values"):
            value = getattr(declared, name, None)
            if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
                updates[name] = tuple(value)
        self._status[key] = replace(self._status[key], manifest=replace(old, **updates))

    def instance(self, kind: str, name: str) -> Any | None:
        """One shared instance (the class called with no arguments); None if broken."""
        key = (kind, name)
        with self._lock:
            if key in self._instances:
                return self._instances[key]
            obj = self.load(kind, name)
            if obj is None:
                return None
            try:
                made = obj() if isinstance(obj, type) else obj
            except BaseException as error:
                if not is_plugin_fault(error):
                    raise
                self._objects.pop(key, None)
                self._record(key, FAILED, error)
                return None
            self._instances[key] = made
            return made

    def call(self, kind: str, name: str, use: Callable[[Any], T]) -> T | None:
        """``use(instance)`` with the plugin's errors caught and recorded; None on failure.

        The plugin stays offered after one failing call (state ``error``): a metric that
        chokes on one odd submission should still score the others.
        """
        plugin = self.instance(kind, name)
        if plugin is None:
            return None
        try:
            result = use(plugin)
        except BaseException as error:
            if not is_plugin_fault(error):
                raise
            with self._lock:
                self._record((kind, name), ERROR, error)
            return None
        return result

    def score(self, name: str, reference: Any, candidate: Any) -> MetricResult | None:
        """Run metric ``name`` on one pair; None (and an ``error`` status) if it fails or
        returns something that is not a finite-valued result."""
        return self.call("metric", name,
                         lambda metric: checked_metric_result(metric.score(reference, candidate)))


_default: PluginRegistry | None = None
_default_lock = threading.Lock()


def get_registry(refresh: bool = False) -> PluginRegistry:
    """The registry of the installed plugins, built once per process."""
    global _default
    with _default_lock:
        if _default is None or refresh:
            _default = PluginRegistry()
        return _default
