"""Hydra's compositions kept on disk between runs, keyed by everything a composition reads.

Hydra composes a config from scratch in every process: it parses every config file of the
defaults tree and merges them with the structured-config schemas, ~0.4 s of CPU a composition.
A re-run of a sweep (``make run`` composes 9 sets of group choices), a subcommand, a CLI run
of the test suite composes what an earlier process already composed. :func:`load_configuration`
answers Hydra's ``ConfigLoader.load_configuration`` from an entry written by an earlier
composition of the same inputs (unpickling one takes a few ms), else composes with the loader
and keeps the result.

The key is a sha256 of:

- the config name, the overrides, the run mode and the loader's flags;
- the versions of Python, Hydra (and its ``version_base``), OmegaConf and the harness, and
  Hydra's job name;
- every config source of the loader's search path: each file folder's and package's YAML files
  (names and contents), the ConfigStore's nodes (their pickled form: values, types and
  schemas). A source Hydra adds while composing (the primary config's ``hydra.searchpath``) is
  fingerprinted into the entry and checked when it is read.

What a composition takes from the process rather than its inputs is set again on every read as
Hydra sets it: ``hydra.runtime.cwd`` and the environment variables ``hydra.job.env_copy`` names.

Entries are pickles, so nothing unverified is ever unpickled: each entry carries an HMAC-SHA256 of
its content under a key only this user can read (``<folder>/key``, mode 0600, made on first use).
An entry that does not verify, or whose added sources changed, is a warning naming the file, and
the config is composed again and the entry replaced. A composition that fails is not kept (it
fails again, with Hydra's error). Writes are atomic (a temporary file renamed into place).

Where: ``$HARNESS_COMPOSITION_CACHE`` (default ``~/.cache/harness/compositions``);
``HARNESS_COMPOSITION_CACHE=off`` composes every time.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib.resources
import logging
import os
import pickle
import sys
import tempfile
from pathlib import Path

from omegaconf import DictConfig, OmegaConf, open_dict

log = logging.getLogger(__name__)

ENV = "HARNESS_COMPOSITION_CACHE"
LAYOUT = b"harness-composition-1\n"
SUFFIX = ".composition"
# Entries kept (~90 KB each); past this the least recently read fifth is removed.
MAX_ENTRIES = 2000
_YAML = (".yaml", ".yml")


def store_folder() -> Path | None:
    """The folder of kept compositions, or None when ``$HARNESS_COMPOSITION_CACHE`` is ``off``."""
    value = os.environ.get(ENV, "").strip()
    if value.lower() == "off":
        return None
    return Path(value).expanduser() if value else Path.home() / ".cache" / "harness" / "compositions"


def load_configuration(loader, config_name: str | None, overrides: list[str], run_mode, *, from_shell: bool = True,
                       validate_sweep_overrides: bool = True) -> DictConfig:
    """``loader.load_configuration(...)``'s config, read from the store where an earlier process
    composed the same inputs, else composed and kept."""
    def compose() -> DictConfig:
        return loader.load_configuration(config_name=config_name, overrides=list(overrides), run_mode=run_mode,
                                         from_shell=from_shell, validate_sweep_overrides=validate_sweep_overrides)

    folder = store_folder()
    if folder is None:
        return compose()
    sources = [_canonical(element.path) for element in loader.get_search_path().get_path()]
    key = _key(sources, config_name, overrides, run_mode, from_shell, validate_sweep_overrides)
    if key is None:  # a source that cannot be fingerprinted: nothing to key an entry by
        return compose()
    store = _Store(folder)
    cfg = store.read(key)
    if cfg is None:
        cfg = compose()
        store.write(key, cfg, sources)
    _set_from_process(cfg)
    return cfg


def load_sweep_config(loader, master_config: DictConfig, sweep_overrides: list[str]) -> DictConfig:
    """A sweep job's config, as Hydra's ``ConfigLoaderImpl.load_sweep_config`` composes it (the
    master config's Hydra overrides, then the job's; run mode RUN; the master config's resolver
    cache copied), through :func:`load_configuration`."""
    from hydra.types import RunMode

    if store_folder() is None:
        return loader.load_sweep_config(master_config, list(sweep_overrides))
    overrides = [*OmegaConf.to_container(master_config.hydra.overrides.hydra), *sweep_overrides]
    cfg = load_configuration(loader, master_config.hydra.job.config_name, overrides, RunMode.RUN)
    OmegaConf.copy_cache(from_config=master_config, to_config=cfg)
    return cfg


def compose(config_name: str, overrides: list[str], return_hydra_config: bool = False) -> DictConfig:
    """What Hydra's compose API (``hydra.compose``) gives inside ``initialize_config_dir`` and the
    like: a RUN-mode composition of the initialised Hydra's loader, through :func:`load_configuration`,
    without its ``hydra`` node unless asked for."""
    from hydra.core.global_hydra import GlobalHydra
    from hydra.types import RunMode

    hydra_app = GlobalHydra.instance().hydra
    if hydra_app is None:
        raise RuntimeError("Hydra is not initialised: compose inside initialize_config_dir() or the like")
    cfg = load_configuration(hydra_app.config_loader, config_name, list(overrides), RunMode.RUN, from_shell=False)
    if not return_hydra_config and "hydra" in cfg:
        with open_dict(cfg):
            del cfg["hydra"]
    return cfg


def _set_from_process(cfg: DictConfig) -> None:
    """What ``_load_configuration_impl`` takes from the process, not from the config's inputs."""
    with open_dict(cfg.hydra):
        cfg.hydra.runtime.cwd = os.getcwd()
        for name in cfg.hydra.job.env_copy:
            cfg.hydra.job.env_set[name] = os.environ[name]


# --- the key -------------------------------------------------------------------------------------

def _key(sources: list[str], config_name, overrides, run_mode, from_shell, validate) -> str | None:
    import hydra
    import omegaconf
    from hydra import version
    from hydra.core.utils import JobRuntime
    from packaging.version import Version

    import harness

    try:
        job_name = JobRuntime.instance().get("name")
    except KeyError:
        job_name = None
    fingerprints = [_source_fingerprint(source) for source in sources]
    if None in fingerprints:
        return None
    base = version.getbase()
    if base is not None and not isinstance(base, Version):  # not set: Hydra's first check sets its default
        base = version.__compat_version__
    described = repr((config_name, list(overrides), str(run_mode), from_shell, validate, sys.version,
                      hydra.__version__, str(base), omegaconf.__version__, harness.__version__,
                      job_name, sources, fingerprints))
    return hashlib.sha256(described.encode()).hexdigest()


def _canonical(path: str) -> str:
    """A search path's entry as ``scheme://path`` (Hydra reads a path without a scheme as a folder)."""
    return path if "://" in path else f"file://{path}"


def _added_sources(cfg: DictConfig, searched: list[str]) -> list[str]:
    """The config sources a composition used beyond the loader's search path (which the key covers):
    those a primary config's ``hydra.searchpath`` added."""
    used = [f"{source.schema}://{source.path}" for source in cfg.hydra.runtime.config_sources]
    return [path for path in used if path not in searched]


def _source_fingerprint(path: str) -> str | None:
    """The sha256 of what a config source holds, or None where it cannot be read from here."""
    scheme, _, where = path.partition("://")
    if scheme == "structured":
        return _config_store_fingerprint()
    if scheme == "file":
        return _folder_fingerprint(Path(where).absolute())
    if scheme == "pkg":
        module, _, subfolder = where.partition("/")
        try:
            folder = importlib.resources.files(module)
        except (ImportError, TypeError, ValueError):
            return "no package"  # Hydra finds no configs there either
        return _folder_fingerprint(folder / subfolder if subfolder else folder) if isinstance(folder, Path) else None
    return None  # a config source plugin of another kind


def _folder_fingerprint(folder: Path) -> str:
    """Names and contents of the YAML files under ``folder``, and its folders (Hydra's groups)."""
    digest = hashlib.sha256(str(folder).encode())
    if not folder.is_dir():
        return digest.hexdigest() + ":absent"
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        digest.update(b"\0d" + os.path.relpath(root, folder).encode())
        for name in sorted(files):
            if name.endswith(_YAML):
                digest.update(b"\0f" + name.encode() + b"\0")
                digest.update(hashlib.sha256(Path(root, name).read_bytes()).digest())
    return digest.hexdigest()


def _config_store_fingerprint() -> str | None:
    """Every node of Hydra's ConfigStore, pickled: its values, value types and schema classes."""
    from hydra.core.config_store import ConfigStore

    digest = hashlib.sha256()

    def walk(tree: dict, path: str) -> None:
        for name in sorted(tree):
            item = tree[name]
            if isinstance(item, dict):
                walk(item, f"{path}/{name}")
            else:
                digest.update(repr((path, name, item.group, item.package, item.provider)).encode())
                digest.update(pickle.dumps(item.node, protocol=5))

    try:
        walk(ConfigStore.instance().repo, "")
    except (pickle.PicklingError, TypeError, AttributeError):  # a node of a class pickle cannot name
        return None
    return digest.hexdigest()


# --- the entries ---------------------------------------------------------------------------------

class _Store:
    """Signed entries in a folder: ``<key>.composition`` = layout line, HMAC, pickle."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def read(self, key: str) -> DictConfig | None:
        path = self.folder / (key + SUFFIX)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        problem, cfg = self._verified(data)
        if problem is None:
            try:
                os.utime(path)  # recently read: kept longest
            except OSError:
                pass
            return cfg
        log.warning("the kept composition %s %s; composing the config again", path, problem)
        return None

    def _verified(self, data: bytes) -> tuple[str | None, DictConfig | None]:
        if not data.startswith(LAYOUT):
            return "is not a composition of this layout", None
        secret = self._secret()
        if secret is None:
            return "cannot be checked (no key)", None
        signature, payload = data[len(LAYOUT):len(LAYOUT) + 32], data[len(LAYOUT) + 32:]
        if not hmac.compare_digest(signature, hmac.new(secret, payload, hashlib.sha256).digest()):
            return "does not match its signature (changed or written by someone else)", None
        try:
            added, cfg = pickle.loads(payload)
        except Exception as err:  # noqa: BLE001 - signed by this user, but of classes this code no longer has
            return f"could not be read ({type(err).__name__}: {err})", None
        if {path: _source_fingerprint(path) for path in added} != added:
            return "was composed from config files that have changed since", None
        return None, cfg

    def write(self, key: str, cfg: DictConfig, searched: list[str]) -> None:
        """Keeps ``cfg`` under ``key``, with the fingerprints of the sources it added to ``searched``."""
        secret = self._secret(create=True)
        if secret is None:
            return
        added = {path: _source_fingerprint(path) for path in _added_sources(cfg, searched)}
        if None in added.values():
            return
        try:
            payload = pickle.dumps((added, cfg), protocol=5)
        except Exception as err:  # noqa: BLE001 - a value pickle cannot write: the config is not kept
            log.debug("composition not kept: %r", err)
            return
        data = LAYOUT + hmac.new(secret, payload, hashlib.sha256).digest() + payload
        try:
            with tempfile.NamedTemporaryFile(dir=self.folder, prefix=".", suffix=".tmp", delete=False) as handle:
                handle.write(data)
            os.replace(handle.name, self.folder / (key + SUFFIX))
        except OSError as err:
            log.debug("composition not kept in %s: %r", self.folder, err)
            return
        self._prune()

    def _secret(self, create: bool = False) -> bytes | None:
        """The HMAC key, made (mode 0600) on first use; None where it can be neither read nor made, or
        where someone else could have put it there (a folder or key not this user's own, or open to
        others' writes): then nothing is read or kept."""
        path = self.folder / "key"
        try:
            if create:
                self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            if not _private(self.folder, 0o022):
                return _refused(self.folder, "the folder is not this user's own, or others may write to it")
            if not path.exists() and create:
                _make_key(self.folder, path)
            if not path.exists():
                return None
            if not _private(path, 0o077):
                return _refused(self.folder, "its key is not this user's own, or others may read it")
            return path.read_bytes()
        except OSError as err:
            log.debug("no composition store in %s: %r", self.folder, err)
            return None

    def _prune(self) -> None:
        entries = [entry for entry in os.scandir(self.folder) if entry.name.endswith(SUFFIX)]
        if len(entries) <= MAX_ENTRIES:
            return
        entries.sort(key=lambda entry: entry.stat().st_mtime_ns)
        for entry in entries[:len(entries) - MAX_ENTRIES * 4 // 5]:
            try:
                os.unlink(entry.path)
            except OSError:
                pass


def _private(path: Path, forbidden_mode_bits: int) -> bool:
    status = path.stat()
    return status.st_uid == os.getuid() and not status.st_mode & forbidden_mode_bits


def _make_key(folder: Path, path: Path) -> None:
    staged = folder / f".key-{os.getpid()}"
    descriptor = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(os.urandom(32))
    try:
        os.link(staged, path)  # fails where another process made the key first: its key is used
    except FileExistsError:
        pass
    finally:
        os.unlink(staged)


_REFUSED: set[Path] = set()


def _refused(folder: Path, reason: str) -> None:
    if folder not in _REFUSED:  # once per folder and process
        _REFUSED.add(folder)
        log.warning("compositions are not kept in %s: %s (set $%s to a folder of your own, or off)",
                    folder, reason, ENV)
    return None
