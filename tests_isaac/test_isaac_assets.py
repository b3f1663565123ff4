"""The local asset folder: built from a clean cache, a clear error when it is missing."""

import json
import xml.etree.ElementTree as ET

import pytest

from sims.backends.isaac.assets import (
    PUBLISHED_INERTIALS,
    IsaacAssetsMissingError,
    build_assets,
    require_assets,
)


def test_missing_assets_name_make_isaac(tmp_path):
    with pytest.raises(IsaacAssetsMissingError, match="make isaac"):
        require_assets(tmp_path / "nothing")


def test_assets_build_from_a_clean_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MILES_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("MILES_ISAAC_ASSETS", raising=False)
    root = build_assets()
    assert root == tmp_path / "isaac-assets"
    paths = require_assets(usd=True)
    assert paths["usd"].is_file() and json.loads(paths["manifest"].read_text())["usd"]
    urdf = ET.parse(paths["urdf"]).getroot()
    links = {link.get("name"): link for link in urdf.findall("link")}
    assert "panda_link8" not in links
    hand = next(j for j in urdf.findall("joint") if j.get("name") == "panda_hand_joint")
    assert hand.find("parent").get("link") == "panda_link7"
    assert hand.find("origin").get("xyz") == "0 0 0.107"
    for name, (mass, _, _) in PUBLISHED_INERTIALS.items():
        value = float(links[name].find("inertial/mass").get("value"))
        assert value == pytest.approx(mass)
    for mesh in urdf.iter("mesh"):
        assert (paths["urdf"].parent / mesh.get("filename")).is_file()
    assert not list(tmp_path.glob(".isaac-assets-*"))  # no staging folder left behind
