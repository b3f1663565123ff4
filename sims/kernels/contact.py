"""The contact model of push and pick_place, allocation-free: the fingers, the table and
cube tops under them, the gripper and grasp, and the cube sliding on the table.

Fingers are two vertical prisms beside the TCP along the hand's finger axis (each a 2 x 2
grid of ``PAD_RADIUS`` circles in cube contacts; one ``FINGER_RADIUS`` circle when landing
on a cube's top); the cube is a yawed box that slides quasi-statically on the table: a
finger's penetration is resolved along the contact normal and the resulting contact force
moves the cube through an ellipsoidal limit surface (translation plus a rotation for
off-centre pushes), with Coulomb friction at the finger contact. See
:mod:`sims.backends.numba_backend` for the full description.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from numba.extending import register_jitable

from sims.kernels.inline_source import pasted
from sims.kernels.kinematics import clip, fk_row, ik_move, store_tcp
from sims.kernels.layout import (
    I_HAS_GRIPPER,
    I_PAD_GRID,
    P_DT,
    P_GAIN,
    P_IK_DAMPING,
    P_LSR_HI,
    P_LSR_LO,
    P_MU_FINGER,
    P_MU_FINGER_HI,
    P_MU_TABLE,
    S_CUBE_HALF,
    S_FRICTION,
    S_GOF,
    S_GRASPED,
    S_KICK,
    S_LSR,
    S_MU_FINGER,
    S_OBJ,
    S_PAD,
    S_VEL,
    S_WIDTH,
    S_YAW,
)
from sims.robots import panda


@dataclass(frozen=True)
class ContactModel:
    """How a task's fingers touch the cube, and which contact parameters vary (a cube
    task's ``CONTACT_MODEL``, packed by :func:`pack_contact`)."""

    pad_grid: bool
    """True: each finger is a 2 x 2 grid of circles (flat faces); False: one cylinder."""
    mu_finger: tuple[float, float]
    """Finger-cube friction coefficient, drawn per episode (uniform in this range)."""
    limit_surface: tuple[float, float]
    """Limit-surface radius over the cube's edge, drawn per episode: 0.383 is a uniform
    table pressure, 0.707 all of it at the corners (Bullet's four box-plane contacts)."""


FINGER_RADIUS = 0.0135
"""Radius of each finger cylinder: PyBullet's Panda finger has a footprint of about
0.029 m across the finger axis by 0.026 m along it."""
FINGERTIP_BELOW_TCP = 0.01
"""How far the fingertips reach below the TCP (PyBullet's panda_grasptarget)."""
FINGER_LENGTH = 0.05
"""Height of the finger cylinders above the fingertips (the hand starts above)."""
PAD_RADIUS = 0.009
"""Radius of the four circles that make up a finger's footprint in cube contacts: a 2 x 2
grid, so the finger's faces are flat between rounded corners."""
PAD_ACROSS = FINGER_RADIUS - PAD_RADIUS + 0.001
"""Offset of the pad circles across the finger axis (footprint 0.029 m across)."""
PAD_NEAR = PAD_RADIUS
"""Offset of the inner pad circles along the finger axis beyond the finger's inner face."""
PAD_FAR = 2.0 * FINGER_RADIUS - PAD_RADIUS
"""Offset of the outer pad circles (footprint 0.027 m along the axis)."""
CONTACT_TOP_BAND = 0.006
"""A finger whose tip is less than this below a cube's top face does not push it: in
PyBullet such a grazing contact rides over the edge or tips the cube instead of sliding
it, so the model gives the policy no credit for it."""
CONTACT_SUBSTEPS = 4
"""The fingers' motion in one control step is resolved against the cube in this many
equal parts (a 2 cm step would otherwise sink a finger 1.6 cm into the cube at once)."""
CONTACT_PASSES = 2
"""Gauss-Seidel passes over the two finger contacts per substep (alternating fingers, so
that two fingers on one face leave it flush with both instead of turning the cube)."""
LIMIT_SURFACE_RATIO = 0.3826
"""Mean distance of a square's points from its centre over its edge: the cube's
limit-surface radius c = ratio * edge (uniform table pressure)."""
GRAVITY = 9.81
GRASP_RELEASE_SLACK = 0.002
"""Fingers opened this much wider than the cube release it (m)."""

WIDTH_MAX = panda.gripper_width_max
"""Finger opening (m) of an open gripper."""


@register_jitable
def push_cube(cx, cy, cyaw, px, py, mx, my, radius, half, mu, ls_ratio):
    """Resolve a vertical finger cylinder (centre (px, py), radius ``radius``, moved by
    (mx, my) this step) against the cube (centre (cx, cy), yaw ``cyaw``, half edge
    ``half``), quasi-statically.

    The penetration depth along the contact normal plus the finger's tangential motion is
    the displacement asked of the cube's contact point. The cube's twist follows an
    ellipsoidal limit surface: displacement v = F, rotation w = (r x F) / c^2 for a
    contact force F at contact point r (c = ``ls_ratio`` * edge; ``LIMIT_SURFACE_RATIO``
    for a uniform pressure), so the contact point moves by (I + p p^T / c^2) F with
    p = z x r. F sticks when inside the friction cone of coefficient ``mu``, else slides
    on its edge. Returns the new (cx, cy, cyaw) and whether the finger touched the cube.
    """
    c = math.cos(cyaw)
    s = math.sin(cyaw)
    ox = px - cx
    oy = py - cy
    lx = c * ox + s * oy
    ly = -s * ox + c * oy
    qx = clip(lx, -half, half)
    qy = clip(ly, -half, half)
    dx = lx - qx
    dy = ly - qy
    dist = math.sqrt(dx * dx + dy * dy)
    if dist >= radius:
        return cx, cy, cyaw, False
    if dist > 1e-12:
        nx = -dx / dist
        ny = -dy / dist
        depth = radius - dist
    else:  # finger centre inside the square: leave through the nearest face
        gap_x = half - abs(lx)
        gap_y = half - abs(ly)
        if gap_x < gap_y:
            sx = 1.0 if lx >= 0.0 else -1.0
            nx = -sx
            ny = 0.0
            qx = sx * half
            depth = radius + gap_x
        else:
            sy = 1.0 if ly >= 0.0 else -1.0
            nx = 0.0
            ny = -sy
            qy = sy * half
            depth = radius + gap_y
    tx = -ny
    ty = nx
    # finger motion in the cube frame, tangential part
    mlx = c * mx + s * my
    mly = -s * mx + c * my
    slide_t = mlx * tx + mly * ty
    rc = ls_ratio * 2.0 * half
    rc2 = rc * rc
    pxl = -qy
    pyl = qx
    pn = pxl * nx + pyl * ny
    pt = pxl * tx + pyl * ty
    # sticking: solve (I + p p^T / c^2) F = depth n + slide_t t (Sherman-Morrison)
    bx = depth * nx + slide_t * tx
    by = depth * ny + slide_t * ty
    pb = pxl * bx + pyl * by
    scale = pb / (rc2 + pxl * pxl + pyl * pyl)
    fx = bx - pxl * scale
    fy = by - pyl * scale
    f_n = fx * nx + fy * ny
    f_t = fx * tx + fy * ty
    if f_n <= 0.0 or abs(f_t) > mu * f_n:
        # sliding: F = f (n + mu sgn t) with the normal condition n . A F = depth
        sgn = 1.0 if f_t >= 0.0 else -1.0
        denom = 1.0 + (pn * pn + mu * sgn * pn * pt) / rc2
        if denom < 0.25:  # near jamming: drop the friction
            sgn = 0.0
            denom = 1.0 + pn * pn / rc2
        f = depth / denom
        fx = f * (nx + mu * sgn * tx)
        fy = f * (ny + mu * sgn * ty)
    omega = (pxl * fx + pyl * fy) / rc2
    cx += c * fx - s * fy
    cy += s * fx + c * fy
    return cx, cy, cyaw + omega, True


@register_jitable
def wrap_quarter(angle):
    """``angle`` wrapped into [-pi/4, pi/4) (the cube's 90 deg symmetry)."""
    quarter = 0.5 * math.pi
    return angle - quarter * math.floor(angle / quarter + 0.5)


@register_jitable
def finger_overlaps_cube(fcx, fcy, ox, oy, yaw, half, radius):
    c = math.cos(yaw)
    s = math.sin(yaw)
    lx = c * (fcx - ox) + s * (fcy - oy)
    ly = -s * (fcx - ox) + c * (fcy - oy)
    dx = lx - clip(lx, -half, half)
    dy = ly - clip(ly, -half, half)
    return dx * dx + dy * dy < radius * radius


@register_jitable
def horizontal_axis(fx, fy):
    norm = math.sqrt(fx * fx + fy * fy)
    if norm < 1e-9:
        return 0.0, 1.0
    return fx / norm, fy / norm


@pasted  # into the generated CPU step (sims.kernels.step): a call costs push 5%
@register_jitable(_nrt=False)
def object_step(k, fp, ip, st, scratch, prev_x, prev_y, prev_z, prev_width, a_grip):
    """Table/cube floor for the fingers, gripper and grasp, and the cube's motion, after
    the arm has moved to its new joint positions."""
    dt = fp[P_DT]
    half = st[k, S_CUBE_HALF]
    # the pads (half this episode's finger_reading, per finger): > 0, each pad's face lies
    # this far inside the end of the reported opening; < 0, compliant pads that gripping
    # squeezes by -pad, so a held cube reads under its edge while their faces rest on it
    pad = st[k, S_PAD]
    face = max(pad, 0.0)  # the faces' inset when not gripping (squeezed pads spring back)
    radius = FINGER_RADIUS
    tx, ty, tz, fx, fy, fz = fk_row(st, k, scratch)
    hx, hy = horizontal_axis(fx, fy)
    width = st[k, S_WIDTH]
    grasped = st[k, S_GRASPED] > 0.5
    prev_face = pad if grasped else face  # the faces' inset as the step starts
    ox = st[k, S_OBJ]
    oy = st[k, S_OBJ + 1]
    oz = st[k, S_OBJ + 2]
    oyaw = st[k, S_YAW]
    # --- floor: fingertips stay above the table and on top of a cube they land on ----
    floor = FINGERTIP_BELOW_TCP
    if grasped:
        floor = max(floor, half - st[k, S_GOF + 2])
    elif prev_z - FINGERTIP_BELOW_TCP >= oz + half - 1e-3:
        off = 0.5 * width - face + radius
        for side in (-1.0, 1.0):
            fcx = tx + side * off * hx
            fcy = ty + side * off * hy
            if finger_overlaps_cube(fcx, fcy, ox, oy, oyaw, half, radius):
                floor = max(floor, oz + half + FINGERTIP_BELOW_TCP)
    if tz < floor:
        ik_move(k, st, 0.0, 0.0, floor - tz, fp[P_IK_DAMPING], 1.0, scratch)
        tx, ty, tz, fx, fy, fz = fk_row(st, k, scratch)
        hx, hy = horizontal_axis(fx, fy)
    store_tcp(k, st, tx, ty, tz, fx, fy, fz)
    gain = fp[P_GAIN]
    hand_yaw = math.atan2(hy, hx)
    # --- gripper and grasp -----------------------------------------------------------
    if ip[I_HAS_GRIPPER] != 0:
        opening = a_grip > 0.0
        if grasped:
            if opening:
                width = width + gain * (WIDTH_MAX - width)
                if width > 2.0 * (half + face) + GRASP_RELEASE_SLACK:
                    grasped = False
                    st[k, S_VEL] = 0.0
                    st[k, S_VEL + 1] = 0.0
                    st[k, S_VEL + 2] = 0.0
        else:
            target = WIDTH_MAX if opening else 2.0 * face  # closed: the pads meet
            new_width = width + gain * (target - width)
            if not opening:
                rx = ox - tx
                ry = oy - ty
                along = rx * hx + ry * hy
                across = -rx * hy + ry * hx
                # the pads must already be at the cube's height when the step starts: in
                # PyBullet fingers that close while still coming down close above the cube
                between = (
                    abs(across) < half
                    and abs(oz - tz) < half
                    and abs(oz - prev_z) < half
                    and abs(along) < 0.5 * width - face
                )
                if between and new_width <= 2.0 * (half + pad):
                    grasped = True
                    new_width = 2.0 * (half + pad)
                    # the closing fingers centre the cube and square it to the pads
                    ox = tx - across * hy
                    oy = ty + across * hx
                    oyaw = hand_yaw + wrap_quarter(oyaw - hand_yaw)
                    st[k, S_GOF] = ox - tx
                    st[k, S_GOF + 1] = oy - ty
                    st[k, S_GOF + 2] = oz - tz
                    st[k, S_GOF + 3] = oyaw - hand_yaw
            width = new_width
        st[k, S_WIDTH] = width
        st[k, S_GRASPED] = 1.0 if grasped else 0.0
    # --- the cube ----------------------------------------------------------------------
    if grasped:
        ox = tx + st[k, S_GOF]
        oy = ty + st[k, S_GOF + 1]
        oz = tz + st[k, S_GOF + 2]
        if oz < half:
            oz = half
            st[k, S_GOF + 2] = oz - tz
        oyaw = hand_yaw + st[k, S_GOF + 3]
        st[k, S_VEL] = 0.0
        st[k, S_VEL + 1] = 0.0
        st[k, S_VEL + 2] = 0.0
    else:
        start_x = ox
        start_y = oy
        vx = st[k, S_VEL]
        vy = st[k, S_VEL + 1]
        vz = st[k, S_VEL + 2]
        if oz > half or vz != 0.0:  # released: falls to the table
            vz -= GRAVITY * dt
            oz += vz * dt
            if oz <= half:
                oz = half
                vz = 0.0
        speed = math.sqrt(vx * vx + vy * vy)
        if speed > 0.0:  # sliding on after a push, Coulomb deceleration mu g (exact)
            decel = fp[P_MU_TABLE] * st[k, S_FRICTION] * GRAVITY
            slowed = max(0.0, speed - decel * dt)
            if slowed > 0.0:
                travel = (speed + slowed) * 0.5 * dt
            else:
                travel = speed * speed / (2.0 * decel)
            ox += vx / speed * travel
            oy += vy / speed * travel
            vx *= slowed / speed
            vy *= slowed / speed
        tip = tz - FINGERTIP_BELOW_TCP
        touched = False
        if tip < oz + half - CONTACT_TOP_BAND and tip + FINGER_LENGTH > oz - half:
            # the fingers sweep from their previous to their new place in substeps; in
            # each, their tangential motion drags the cube once (the first contact that
            # touches), not once per finger and pass
            # each finger touches the cube as a 2 x 2 grid of PAD_RADIUS circles (flat faces
            # push as faces) or as one FINGER_RADIUS cylinder
            grid = ip[I_PAD_GRID] != 0
            pads = 4 if grid else 1
            pad_radius = PAD_RADIUS if grid else radius
            off = 0.5 * width - face + radius
            prev_off = 0.5 * prev_width - prev_face + radius
            for sub in range(CONTACT_SUBSTEPS):
                f1 = (sub + 1.0) / CONTACT_SUBSTEPS
                f0 = sub / CONTACT_SUBSTEPS
                bx = prev_x + f1 * (tx - prev_x)
                by = prev_y + f1 * (ty - prev_y)
                b0x = prev_x + f0 * (tx - prev_x)
                b0y = prev_y + f0 * (ty - prev_y)
                w1 = 0.5 * (prev_width + f1 * (width - prev_width)) - (
                    prev_face + f1 * (face - prev_face)
                )
                w0 = 0.5 * (prev_width + f0 * (width - prev_width)) - (
                    prev_face + f0 * (face - prev_face)
                )
                off1 = prev_off + f1 * (off - prev_off)
                off0 = prev_off + f0 * (off - prev_off)
                dragged = False
                for _ in range(CONTACT_PASSES):
                    for c in range(2 * pads):
                        side = -1.0 if c < pads else 1.0
                        across = 0.0
                        if grid:
                            along = PAD_NEAR if (c & 2) == 0 else PAD_FAR
                            across = -PAD_ACROSS if (c & 1) == 0 else PAD_ACROSS
                            a1 = side * (w1 + along)
                            a0 = side * (w0 + along)
                        else:
                            a1 = side * off1
                            a0 = side * off0
                        fcx = bx + a1 * hx - across * hy
                        fcy = by + a1 * hy + across * hx
                        mx = 0.0
                        my = 0.0
                        if not dragged:
                            mx = fcx - (b0x + a0 * hx - across * hy)
                            my = fcy - (b0y + a0 * hy + across * hx)
                        ox, oy, oyaw, hit = push_cube(
                            ox,
                            oy,
                            oyaw,
                            fcx,
                            fcy,
                            mx,
                            my,
                            pad_radius,
                            half,
                            st[k, S_MU_FINGER],
                            st[k, S_LSR],
                        )
                        if hit:
                            touched = True
                            dragged = True
        if touched:
            kick = st[k, S_KICK] / dt
            vx = (ox - start_x) * kick
            vy = (oy - start_y) * kick
        st[k, S_VEL] = vx
        st[k, S_VEL + 1] = vy
        st[k, S_VEL + 2] = vz
    st[k, S_OBJ] = ox
    st[k, S_OBJ + 1] = oy
    st[k, S_OBJ + 2] = oz
    st[k, S_YAW] = oyaw


@register_jitable
def gripper_command(a, has_gripper):
    """The gripper entry of the applied action; -1 (closed) for tasks without a gripper."""
    if has_gripper != 0:
        return a[3]
    return -1.0


@register_jitable(_nrt=False)
def cube_physics(k, fp, ip, st, scratch, a, cartesian, prev_x, prev_y, prev_z, prev_width):
    """The world of a task with a cube after the arm has moved (:func:`object_step`, the
    gripper commanded by the action's fourth entry where the task has a gripper). A cube
    task's ``KERNEL.physics``."""
    a_grip = gripper_command(a, ip[I_HAS_GRIPPER])
    object_step(k, fp, ip, st, scratch, prev_x, prev_y, prev_z, prev_width, a_grip)


def pack_contact(model: ContactModel, finger_friction_scale, fp, ip) -> None:
    """``model``'s numbers into the parameter vectors, its finger friction range scaled by
    the randomization's ``finger_friction_scale`` (lo, hi)."""
    scale_lo, scale_hi = finger_friction_scale
    fp[P_MU_FINGER] = model.mu_finger[0] * scale_lo
    fp[P_MU_FINGER_HI] = model.mu_finger[1] * scale_hi
    fp[P_LSR_LO], fp[P_LSR_HI] = model.limit_surface
    ip[I_PAD_GRID] = 1 if model.pad_grid else 0
