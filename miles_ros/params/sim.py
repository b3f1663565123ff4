"""Parameters of ``sim_node`` (defaults mirrored in config/sim.yaml; names from
:mod:`miles_ros.interfaces`). ROS-free."""

from __future__ import annotations

from dataclasses import dataclass

from miles_ros import interfaces


@dataclass(frozen=True)
class SimNodeParams:
    """Parameters of ``sim_node`` (PyBullet as a robot)."""

    scene_file: str = ""
    """Scene YAML ('' = the default config/scene.yaml)."""
    physics_dt: float = 0.002
    """Physics timestep (s), as in training."""
    publish_rate_hz: float = 250.0
    """Rate of /joint_states (Hz); physics runs round(1 / (rate * physics_dt)) steps per
    message."""
    real_time: bool = True
    """True: physics paced at wall-clock rate; False: as fast as possible, with sim time
    on /clock (run the other nodes with use_sim_time:=true)."""
    objects_rate_hz: float = 50.0
    """Rate of the object poses message (Hz)."""
    initial_joint_positions: tuple[float, ...] = ()
    """Arm pose at start and reset (rad, 7 values; empty = the home pose)."""
    frame_id: str = "panda_link0"
    """Frame of the object poses and camera (the robot base)."""
    joint_states_topic: str = interfaces.JOINT_STATES
    """sensor_msgs/JointState out: the 7 arm joints and both fingers (sensor QoS)."""
    joint_command_topic: str = interfaces.JOINT_COMMAND
    """sensor_msgs/JointState in: motor position targets by joint name."""
    objects_topic: str = interfaces.SCENE_OBJECTS
    """std_msgs/String out: JSON object poses (docs/interfaces.md)."""
    clock_topic: str = interfaces.CLOCK
    """rosgraph_msgs/Clock out, only when real_time is False."""
    reset_service: str = interfaces.SIM_RESET
    """std_srvs/Trigger: arm to the initial pose, cubes to their scene poses."""
    camera_service: str = interfaces.SIM_CAPTURE
    """std_srvs/Trigger: render one frame and publish it on camera_topic."""
    camera_topic: str = interfaces.CAMERA_IMAGE
    """sensor_msgs/Image out (rgb8), one per capture request."""
    camera_width: int = 640
    """Image width (px)."""
    camera_height: int = 480
    """Image height (px)."""
    publish_camera: bool = False
    """Publish the scene's RGB-D camera (the scene file's camera: section) as a RealSense
    driver does: colour, aligned depth (16UC1, mm) and camera_info at its rate_hz, with its
    noise model (depth noise, invalid pixels, colour noise, dropped frames, latency, and a
    calibration error drawn once per run), rendered off the physics thread."""
    camera_seed: int = 0
    """Seed of the simulated camera's noise, frame drops and calibration error."""
    camera_color_topic: str = interfaces.CAMERA_COLOR
    """sensor_msgs/Image out (rgb8) with publish_camera (relative: under the namespace)."""
    camera_depth_topic: str = interfaces.CAMERA_DEPTH
    """sensor_msgs/Image out (16UC1, mm, 0 = none) with publish_camera."""
    camera_info_topic: str = interfaces.CAMERA_INFO
    """sensor_msgs/CameraInfo out with publish_camera (plumb_bob, no distortion)."""
    publish_truth_only: bool = False
    """true: the object poses go to truth_topic instead of objects_topic, for evaluation
    only (a perception node then owns objects_topic)."""
    truth_topic: str = interfaces.SCENE_OBJECTS_TRUTH
    """std_msgs/String out: the true object poses, with publish_truth_only."""
    cube_mass_scale: float = 1.0
    """The cell's change (settable while running): multiplier on every cube's mass."""
    table_friction_scale: float = 1.0
    """The cell's change (settable while running): multiplier on cube-table friction."""
    finger_friction_scale: float = 1.0
    """The cell's change (settable while running): multiplier on finger-cube friction."""
    finger_reading: float = 0.0
    """The cell's change (settable while running): offset (m) of the opening the gripper
    reports for a held cube, from its edge (a worn or recalibrated gripper; the finger
    positions on the joint states carry it, the physics does not)."""


CELL_CHANGE_PARAMS = frozenset(
    {"cube_mass_scale", "table_friction_scale", "finger_friction_scale", "finger_reading"}
)
"""sim_node's parameters that change the cell live
(:class:`~miles_ros.runtime.scene_world.CellChange`'s fields)."""
