"""The VLA adapter's pre- and post-processing against hand-computed values."""

from __future__ import annotations

import json

import numpy as np
import pytest

from wmrl_agents.vla import (
    ActionStats,
    OpenVLAPolicy,
    gripper_to_libero,
    prepare_frame,
    prompt,
    tokens_to_normalized,
)


def test_prompt_lowercases_the_instruction():
    assert prompt("Put the Bowl in the drawer") == "In: What action should the robot take to put the bowl in the drawer?\nOut:"


def test_frame_is_resized_cropped_and_keeps_orientation():
    frame = np.zeros((128, 96, 3), dtype=np.uint8)
    frame[:, :48, 0] = 255  # left half red
    frame[:64, :, 2] = 255  # top half blue
    for crop in (False, True):
        image = np.asarray(prepare_frame(frame, 224, center_crop=crop))
        assert image.shape == (224, 224, 3)
        assert image[112, 20, 0] == 255 and image[112, 200, 0] == 0
        assert image[20, 112, 2] == 255 and image[200, 112, 2] == 0
    with pytest.raises(ValueError, match="uint8"):
        prepare_frame(frame.astype(np.float32))


def test_unnormalize_with_libero_statistics(tmp_path):
    q01, q99 = [-0.5, -0.4, -0.9, -0.1, -0.2, -0.3, 0.0], [0.5, 0.8, 0.9, 0.1, 0.2, 0.3, 1.0]
    mask = [True] * 6 + [False]
    path = tmp_path / "dataset_statistics.json"
    path.write_text(json.dumps({"libero_10": {"action": {"q01": q01, "q99": q99, "mask": mask}}}))
    stats = ActionStats.from_file(path)
    assert np.allclose(stats.unnormalize(np.full(7, -1.0))[:6], q01[:6])
    assert np.allclose(stats.unnormalize(np.full(7, 1.0))[:6], q99[:6])
    assert stats.unnormalize(np.zeros(7))[1] == pytest.approx(0.2) and stats.unnormalize(np.full(7, 0.3))[6] == 0.3
    with pytest.raises(ValueError, match="libero_90"):
        ActionStats.from_file(path, "libero_90")


def test_action_tokens_map_to_bin_centres():
    vocab = 32000
    centre = lambda k: -1.0 + (2 * k + 1) / 255  # noqa: E731  (255 centres between 256 edges)
    got = tokens_to_normalized(np.array([vocab - 1, vocab - 128, vocab - 255, vocab - 256]), vocab)
    assert np.allclose(got, [centre(0), centre(127), centre(254), centre(254)])


def test_gripper_is_binarized_and_inverted_for_libero():
    assert gripper_to_libero(np.array([0.1] * 6 + [0.9]))[-1] == -1.0  # open
    assert gripper_to_libero(np.array([0.1] * 6 + [0.2]))[-1] == 1.0  # close
    assert gripper_to_libero(np.array([0.1] * 6 + [0.2]))[0] == 0.1


def test_missing_checkpoint_folder_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="local path"):
        OpenVLAPolicy(tmp_path / "nope")
