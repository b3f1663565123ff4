"""The local asset folder of the Isaac backend, built once by ``make isaac``.

Nothing is downloaded at run time: the Panda comes from pybullet_data's
``franka_panda/panda.urdf`` (a file that ships in the pybullet package), rewritten for
Isaac Lab and Newton, and converted to USD with Isaac Lab's kit-less ``UrdfConverter``;
the table and the cubes are procedural boxes made by the env (no files).

The rewrite:

- ``panda_link8`` (an empty fixed link between ``panda_link7`` and ``panda_hand``) is
  removed: the hand is fixed to ``panda_link7`` at xyz 0 0 0.107, rpy 0 0 -pi/4, the link
  layout of NVIDIA's Franka asset that Isaac Lab's Franka configs expect;
- the link inertials (pybullet's are placeholders, 0.1 kg m^2 everywhere) are the
  Panda's published identified parameters (Gaz et al., "Dynamic Identification of the
  Franka Emika Panda Robot With Retrieval of Feasible Parameters Using Penalty-Based
  Optimization", RA-L 2019, as in franka_description and MuJoCo Menagerie);
- massless frames get zero inertia (pybullet gives ``panda_grasptarget`` 0.1 kg m^2);
- the meshes are copied next to the URDF (relative paths), so the folder stands alone.

Folder: ``$MILES_ISAAC_ASSETS``, else ``$MILES_CACHE_DIR/isaac-assets``, else
``~/.cache/miles/isaac-assets``. Files: ``panda.urdf`` (what the env loads into Newton),
``meshes/``, ``usd/panda/panda.usda`` (Isaac Lab's asset, for Isaac Lab's own env classes)
and ``manifest.json``. ``python -m
sims.backends.isaac.assets [--pybullet-data DIR] [--no-usd] [--if-missing]`` builds it.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import logging
import os
import shutil
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from sims.user_cache import cache_dir

logger = logging.getLogger(__name__)

ASSET_VERSION = 2
"""Bumped whenever the rewrite changes; a folder of another version counts as missing."""

HAND_FROM_LINK7 = ("0 0 0.107", "0 0 -0.785398163397")
"""Origin (xyz, rpy) of the hand on ``panda_link7`` once ``panda_link8`` is gone."""

# Published inertials: mass (kg), centre of mass (m, link frame), inertia about the centre
# of mass (ixx, iyy, izz, ixy, ixz, iyz; kg m^2).
PUBLISHED_INERTIALS: dict[str, tuple[float, tuple, tuple]] = {
    "panda_link0": (
        0.629769,
        (-0.041018, -0.00014, 0.049974),
        (0.00315, 0.00388, 0.004285, 8.2904e-07, 0.00015, 8.2299e-06),
    ),
    "panda_link1": (
        4.970684,
        (0.003875, 0.002081, -0.04762),
        (0.70337, 0.70661, 0.009117, -0.000139, 0.006772, 0.019169),
    ),
    "panda_link2": (
        0.646926,
        (-0.003141, -0.02872, 0.003495),
        (0.007962, 0.02811, 0.025995, -0.003925, 0.010254, 0.000704),
    ),
    "panda_link3": (
        3.228604,
        (0.027518, 0.039252, -0.066502),
        (0.037242, 0.036155, 0.01083, -0.004761, -0.011396, -0.012805),
    ),
    "panda_link4": (
        3.587895,
        (-0.05317, 0.104419, 0.027454),
        (0.025853, 0.019552, 0.028323, 0.007796, -0.001332, 0.008641),
    ),
    "panda_link5": (
        1.225946,
        (-0.011953, 0.041065, -0.038437),
        (0.035549, 0.029474, 0.008627, -0.002117, -0.004037, 0.000229),
    ),
    "panda_link6": (
        1.666555,
        (0.060149, -0.014117, -0.010517),
        (0.001964, 0.004354, 0.005433, 0.000109, -0.001158, 0.000341),
    ),
    "panda_link7": (
        0.735522,
        (0.010517, -0.004252, 0.061597),
        (0.012516, 0.010027, 0.004815, -0.000428, -0.001196, -0.000741),
    ),
    "panda_hand": (0.73, (-0.01, 0.0, 0.03), (0.001, 0.0025, 0.0017, 0.0, 0.0, 0.0)),
    "panda_leftfinger": (0.015, (0.0, 0.0, 0.0), (2.375e-6, 2.375e-6, 7.5e-7, 0.0, 0.0, 0.0)),
    "panda_rightfinger": (0.015, (0.0, 0.0, 0.0), (2.375e-6, 2.375e-6, 7.5e-7, 0.0, 0.0, 0.0)),
}


class IsaacAssetsMissingError(FileNotFoundError):
    """The local asset folder is missing or stale: run ``make isaac``."""


def asset_dir() -> Path:
    """The asset folder (see the module docstring for the environment variables)."""
    explicit = os.environ.get("MILES_ISAAC_ASSETS")
    if explicit:
        return Path(explicit).expanduser()
    return cache_dir() / "isaac-assets"


def require_assets(root: Path | None = None, *, usd: bool = False) -> dict[str, Path]:
    """Paths of the built assets (``urdf``, ``usd``, ``manifest``), or
    :class:`IsaacAssetsMissingError` naming ``make isaac``."""
    root = Path(root) if root is not None else asset_dir()
    manifest = root / "manifest.json"
    paths = {"urdf": root / "panda.urdf", "manifest": manifest, "usd": None}
    missing = [str(paths[k]) for k in ("urdf", "manifest") if not paths[k].is_file()]
    version = None
    if not missing:
        content = json.loads(manifest.read_text())
        version = content.get("version")
        if content.get("usd"):
            paths["usd"] = root / content["usd"]
        if usd and (paths["usd"] is None or not paths["usd"].is_file()):
            missing.append(str(root / "usd"))
    if missing or version != ASSET_VERSION:
        why = f"missing {', '.join(missing)}" if missing else f"asset version {version}"
        raise IsaacAssetsMissingError(
            f"the Isaac backend's local assets are not built in {root} ({why}); run "
            "`make isaac` (or `.venv-isaac/bin/python -m sims.backends.isaac.assets`); "
            "nothing is downloaded at run time"
        )
    return paths


def find_pybullet_data(explicit: str | None = None) -> Path:
    """pybullet_data's folder: ``explicit``, ``$MILES_PYBULLET_DATA``, the importable
    package, or the project's plain ``.venv`` (pybullet has no wheel for Python 3.12)."""
    candidates = [explicit, os.environ.get("MILES_PYBULLET_DATA")]
    try:
        import pybullet_data

        candidates.append(pybullet_data.getDataPath())
    except ImportError:
        repo = Path(__file__).resolve().parents[3]
        candidates += sorted(
            glob.glob(str(repo / ".venv/lib/python3*/site-packages/pybullet_data"))
        )
    for path in candidates:
        if path and (Path(path) / "franka_panda" / "panda.urdf").is_file():
            return Path(path)
    raise IsaacAssetsMissingError(
        "pybullet_data (franka_panda/panda.urdf) not found: run `make venv` first (the plain "
        ".venv has pybullet) or pass --pybullet-data DIR / set MILES_PYBULLET_DATA"
    )


def _set_inertial(link: ET.Element, mass: float, com, inertia) -> None:
    for old in link.findall("inertial"):
        link.remove(old)
    inertial = ET.Element("inertial")
    ET.SubElement(inertial, "origin", xyz=" ".join(f"{v:.9g}" for v in com), rpy="0 0 0")
    ET.SubElement(inertial, "mass", value=f"{mass:.9g}")
    keys = ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")
    ET.SubElement(inertial, "inertia", {k: f"{v:.9g}" for k, v in zip(keys, inertia, strict=True)})
    link.insert(0, inertial)


def rewrite_urdf(text: str) -> str:
    """pybullet's Panda URDF with ``panda_link8`` flattened, published inertials and mesh
    paths relative to the URDF (``meshes/...``)."""
    root = ET.fromstring(text.replace("package://meshes/", "meshes/"))
    links = {link.get("name"): link for link in root.findall("link")}
    joints = {joint.get("name"): joint for joint in root.findall("joint")}
    if "panda_link8" in links:
        root.remove(links.pop("panda_link8"))
        root.remove(joints.pop("panda_joint8"))
        hand = joints["panda_hand_joint"]
        hand.find("parent").set("link", "panda_link7")
        origin = hand.find("origin")
        origin.set("xyz", HAND_FROM_LINK7[0])
        origin.set("rpy", HAND_FROM_LINK7[1])
    for name, (mass, com, inertia) in PUBLISHED_INERTIALS.items():
        _set_inertial(links[name], mass, com, inertia)
    for link in links.values():  # massless frames (panda_grasptarget): no inertia either
        mass = link.find("inertial/mass")
        if mass is not None and float(mass.get("value")) == 0.0:
            _set_inertial(link, 0.0, (0.0, 0.0, 0.0), (0.0,) * 6)
    ET.indent(root)
    return '<?xml version="1.0"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def convert_to_usd(urdf: Path, usd_dir: Path) -> Path:
    """``urdf`` -> ``usd_dir/panda.usd`` with Isaac Lab's kit-less URDF converter (fixed
    base, fixed joints kept so ``panda_hand`` stays a body)."""
    from isaaclab.sim.converters import UrdfConverter, UrdfConverterCfg

    cfg = UrdfConverterCfg(
        asset_path=str(urdf),
        usd_dir=str(usd_dir),
        usd_file_name="panda.usd",
        fix_base=True,
        merge_fixed_joints=False,
        force_usd_conversion=True,
        joint_drive=None,
    )
    path = Path(UrdfConverter(cfg).usd_path)
    if not path.is_file():  # the converter nests its output: usd/panda/panda.usda
        found = sorted(usd_dir.glob("**/panda.usd*"))
        if not found:
            raise RuntimeError(f"the URDF converter wrote no panda.usd* under {usd_dir}")
        path = found[0]
    return path


def build_assets(
    root: Path | None = None, pybullet_data: str | None = None, usd: bool = True
) -> Path:
    """Build the asset folder at ``root`` (default :func:`asset_dir`) from scratch."""
    root = Path(root) if root is not None else asset_dir()
    source = find_pybullet_data(pybullet_data) / "franka_panda"
    start = time.perf_counter()
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".isaac-assets-", dir=root.parent))
    try:
        text = (source / "panda.urdf").read_text(encoding="utf-8")
        shutil.copytree(source / "meshes", staging / "meshes")
        urdf = staging / "panda.urdf"
        urdf.write_text(rewrite_urdf(text), encoding="utf-8")
        manifest = {
            "version": ASSET_VERSION,
            "source": str(source / "panda.urdf"),
            "source_sha256": hashlib.sha256(text.encode()).hexdigest(),
            "usd": None,
        }
        if usd:
            usd_path = convert_to_usd(urdf, staging / "usd")
            manifest["usd"] = str(usd_path.relative_to(staging))
        manifest["build_seconds"] = round(time.perf_counter() - start, 2)
        (staging / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        if root.exists():
            shutil.rmtree(root)
        os.replace(staging, root)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    logger.info("Isaac assets built in %s (%.1f s)", root, time.perf_counter() - start)
    return root


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", help="asset folder (default: the cache folder)")
    parser.add_argument("--pybullet-data", help="pybullet_data folder holding franka_panda/")
    parser.add_argument("--no-usd", action="store_true", help="skip the USD conversion")
    parser.add_argument(
        "--if-missing", action="store_true", help="build only if the folder is missing or stale"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.if_missing:
        try:
            paths = require_assets(args.root, usd=not args.no_usd)
        except IsaacAssetsMissingError:
            pass
        else:
            sys.stdout.write(f"{paths['urdf'].parent} (up to date)\n")
            return 0
    root = build_assets(args.root, args.pybullet_data, usd=not args.no_usd)
    sys.stdout.write(f"{root}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
