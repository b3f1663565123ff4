"""ament_python package `miles_ros`; also `pip install -e .` (see requirements.txt for pins)."""

from glob import glob

from setuptools import find_packages, setup

package_name = "miles_ros"

setup(
    name=package_name,
    version="0.1.0",
    packages=find_packages(include=["miles_ros*", "sims*", "policies*"]),
    package_data={
        "policies": ["skills/*/active.yaml", "skills/*/versions/*/*"],
        "sims": ["assets/*"],
        "miles_ros": [
            "agent/cards/*.yaml",
            "agent/eval_*.yaml",  # every eval set, held-out ones included
            "agent/adapters/*/*",
            "console/static/*",
            "ros/camera_fastdds.xml",
        ],
    },
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
        ("share/" + package_name + "/launch", glob("launch/*.launch.py")),
        ("share/" + package_name + "/config", glob("config/*.yaml")),
    ],
    python_requires=">=3.10",
    install_requires=[
        "numpy>=1.24",
        "numba>=0.59",
        "pybullet>=3.2.5",
        "gymnasium>=1.0",
        "pyyaml",
        "jsonschema",
        "tqdm",
    ],
    zip_safe=True,
    maintainer="Miles team",
    maintainer_email="miles@example.com",
    description="Agentic robot learning for robot arms on ROS 2.",
    license="Apache-2.0",
    tests_require=["pytest"],
    entry_points={
        "console_scripts": [
            "miles = miles_ros.cli:main",
            "safety_node = miles_ros.ros.safety_node:main",
            "sim_node = miles_ros.ros.sim_node:main",
            "skill_node = miles_ros.ros.skill_node:main",
            "manager_node = miles_ros.ros.manager_node:main",
            "command_adapter_node = miles_ros.ros.command_adapter_node:main",
            "arm_agent_node = miles_ros.ros.arm_agent_node:main",
            "perception_node = miles_ros.ros.perception_node:main",
        ],
    },
)
