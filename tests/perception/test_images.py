"""Camera messages' fields as arrays: the encodings a RealSense sends are read exactly,
anything else is refused with the reason."""

import numpy as np
import pytest

from miles_ros.perception import (
    FrameRefused,
    decode_color,
    decode_depth,
    encode_depth_mm,
    intrinsics_from_camera_info,
)

RNG = np.random.default_rng(0)
RGB = RNG.integers(0, 256, (4, 5, 3), dtype=np.uint8)


def test_rgb8_and_bgr8_give_the_same_picture_with_row_padding():
    padded = np.zeros((4, 16 + 4), np.uint8)  # step 20 > 15 bytes of pixels
    padded[:, :15] = RGB.reshape(4, 15)
    assert np.array_equal(decode_color("rgb8", 4, 5, 20, padded.tobytes()), RGB)
    bgr = RGB[:, :, ::-1].copy()
    assert np.array_equal(decode_color("bgr8", 4, 5, 15, bgr.tobytes()), RGB)


def test_16uc1_millimetres_and_32fc1_metres_give_metres():
    metres = np.array([[0.0, 0.5, 1.234], [2.0, 0.001, 65.0]], dtype=np.float32)
    mm = encode_depth_mm(metres)
    assert mm.dtype == np.uint16 and mm[0, 2] == 1234
    back = decode_depth("16UC1", 2, 3, 6, mm.tobytes())
    assert np.allclose(back, metres, atol=5e-4)
    big = decode_depth("16UC1", 2, 3, 6, mm.astype(">u2").tobytes(), is_bigendian=1)
    assert np.array_equal(big, back)
    raw = metres.copy()
    raw[0, 0], raw[1, 1] = np.nan, -1.0
    f = decode_depth("32FC1", 2, 3, 12, raw.tobytes())
    assert f[0, 0] == 0.0 and f[1, 1] == 0.0 and f[0, 2] == pytest.approx(1.234)


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: decode_color("rgba8", 4, 5, 20, bytes(80)), "colour encoding 'rgba8'"),
        (lambda: decode_color("rgb8", 4, 5, 15, bytes(59)), "too short"),
        (lambda: decode_depth("mono16", 4, 5, 10, bytes(40)), "depth encoding 'mono16'"),
        (lambda: decode_depth("16UC1", 0, 5, 10, b""), "empty"),
        (lambda: intrinsics_from_camera_info(5, 4, [0.0] * 9, [], "plumb_bob"), "camera matrix"),
        (
            lambda: intrinsics_from_camera_info(
                5, 4, [1, 0, 2, 0, 1, 2, 0, 0, 1], [0.1], "fisheye"
            ),
            "distortion model 'fisheye'",
        ),
        (lambda: intrinsics_from_camera_info(0, 0, [1, 0, 2, 0, 1, 2, 0, 0, 1], [], ""), "size"),
    ],
)
def test_what_cannot_be_read_is_refused_with_the_reason(call, words):
    with pytest.raises(FrameRefused, match=words):
        call()


def test_camera_info_gives_the_intrinsics_and_distortion():
    k = intrinsics_from_camera_info(
        640, 480, [600, 0, 320, 0, 610, 240, 0, 0, 1], [0.1, -0.2, 0, 0, 0.01], "plumb_bob"
    )
    assert (k.fx, k.fy, k.cx, k.cy) == (600, 610, 320, 240)
    assert k.distortion == (0.1, -0.2, 0.0, 0.0, 0.01)
