"""Training with the envs on a device: GPU-resident numba envs (run here under numba's CUDA
simulator, in a subprocess: NUMBA_ENABLE_CUDASIM must be set before numba is imported, with
the torch side on the CPU and the envs on the simulated GPU, ``--env-device cuda``), the
tensor versions of the episode statistics and the storage, and where ``--device`` /
``--env-device`` take the envs (the Isaac factory monkeypatched: no Isaac Lab here)."""

import json
import textwrap

import numpy as np
import pytest
import torch

import sims
from policies.ppo.envs import env_device_error, resolve_env_device
from policies.ppo.gae import compute_gae
from policies.ppo.progress import EpisodeStats
from policies.ppo.storage import RolloutStorage
from tests.cudasim import run_script

SIMULATED = textwrap.dedent(
    """
    import json, sys, warnings
    from pathlib import Path
    import numpy as np
    import torch
    warnings.simplefilter("ignore")  # uint64 wrap-around warns in the simulator
    from policies.commands import train as train_cmd
    from policies.ppo.config import default_train_config
    from policies.ppo.device_envs import TorchDeviceEnv
    from policies.ppo.gae import compute_gae
    from policies.ppo.runner import OnPolicyRunner
    from policies.ppo.gae_cuda import gae_on_device

    out = Path(sys.argv[1])

    # the GAE CUDA kernel runs the CPU kernel's recursion
    rng = np.random.default_rng(0)
    T, N = 7, 5
    rewards = rng.normal(size=(T, N)).astype(np.float32)
    values = rng.normal(size=(T, N)).astype(np.float32)
    dones = (rng.random((T, N)) < 0.3).astype(np.float32)
    last = rng.normal(size=N).astype(np.float32)
    adv, ret = np.empty((T, N), np.float32), np.empty((T, N), np.float32)
    gae_on_device(rewards, values, dones, last, 0.9, 0.8, adv, ret)
    want_adv, want_ret = compute_gae(rewards, values, dones, last, 0.9, 0.8)
    np.testing.assert_allclose(adv, want_adv, rtol=0, atol=1e-6)
    np.testing.assert_allclose(ret, want_ret, rtol=0, atol=1e-6)

    # the first rollout of a run on the simulated GPU is the CPU env's rollout
    cfg = default_train_config("reach")
    rc = cfg.runner
    rc.num_envs, rc.rollout_steps = 4, 8
    rc.progress = rc.tensorboard = False
    cfg.env.episode_scale = 0.03  # a few steps per episode: time-outs within the rollout
    cfg.env.action_latency_steps = 0  # (latency must stay shorter than the episode)
    rollouts = {}
    for where in ("cpu", "cuda"):
        runner = OnPolicyRunner(cfg, out / where, env_device=where)
        assert runner.device_envs == (where == "cuda"), where
        obs = runner._reset_envs()
        runner._rollout(obs)
        st = runner.storage
        rollouts[where] = {
            "obs": st.obs.numpy().copy(),
            "actions": st.actions.numpy().copy(),
            "rewards": st.rewards.numpy().copy(),
            "dones": st.dones.numpy().copy(),
            "success": list(runner.episodes.success),
            "episode_return": list(runner.episodes.episode_return),
            "episode_length": list(runner.episodes.episode_length),
        }
        if where == "cuda":
            assert isinstance(runner.env, TorchDeviceEnv)
            assert isinstance(runner.episodes.returns, torch.Tensor)
            # the runner's envs write into a ring of two output sets: no allocation a step
            zeros = torch.zeros(4, runner.action_dim)
            ptrs = [runner.env.step(zeros)[0].data_ptr() for _ in range(4)]
            assert ptrs[0] == ptrs[2] and ptrs[1] == ptrs[3] and ptrs[0] != ptrs[1], ptrs
    cpu, dev = rollouts["cpu"], rollouts["cuda"]
    assert cpu["dones"].sum() >= 4, "no episode ended in the rollout"
    for key in ("obs", "actions", "rewards", "dones"):
        np.testing.assert_allclose(dev[key], cpu[key], rtol=0, atol=1e-6, err_msg=key)
    assert dev["success"] == cpu["success"]
    assert dev["episode_length"] == cpu["episode_length"]
    np.testing.assert_allclose(dev["episode_return"], cpu["episode_return"], atol=1e-6)

    # a whole (tiny) run through the CLI
    code = train_cmd.main([
        "reach", "--num-envs", "4", "--steps", "32", "--rollout-steps", "4",
        "--env-device", "cuda", "--eval-every", "0", "--final-eval-episodes", "0",
        "--no-progress", "--no-tensorboard", "--out", str(out / "run"),
    ])
    assert code == 0, code
    summary = json.loads((out / "run" / "summary.json").read_text())
    print("SUMMARY " + json.dumps(summary))
    """
)


def test_training_on_simulated_gpu_envs_matches_the_cpu_envs(tmp_path):
    proc = run_script(SIMULATED, str(tmp_path), timeout=900)
    line = next(x for x in proc.stdout.splitlines() if x.startswith("SUMMARY "))
    summary = json.loads(line[len("SUMMARY ") :])
    assert summary["env_device"] == "cuda:0" and summary["device"] == "cpu"
    assert summary["iterations"] == 2 and summary["env_steps"] == 32
    assert summary["interrupted"] is None
    assert (tmp_path / "run" / "checkpoints").is_dir()


def test_episode_stats_on_tensors_record_what_the_host_version_records():
    rng = np.random.default_rng(1)
    n, window = 6, 9
    host, dev = EpisodeStats(n, window), EpisodeStats(n, window, torch.device("cpu"))
    for step in range(40):
        reward = rng.normal(size=n).astype(np.float32)
        terminated = rng.random(n) < 0.1
        done = terminated | (rng.random(n) < 0.15)
        host.step(reward, terminated, done)
        dev.step(torch.from_numpy(reward), torch.from_numpy(terminated), torch.from_numpy(done))
        if step % 7 == 3:  # read now and then, as the runner does once per update
            assert list(dev.success) == list(host.success)
    assert len(host.success) == window  # the window filled and slid
    assert list(dev.success) == list(host.success)
    assert list(dev.episode_length) == list(host.episode_length)
    np.testing.assert_allclose(list(dev.episode_return), list(host.episode_return), atol=1e-12)
    assert dev.mean_return == pytest.approx(host.mean_return, abs=1e-12)
    np.testing.assert_allclose(dev.returns.numpy(), host.returns, atol=1e-12)


def test_storage_takes_tensors_and_host_arrays_alike():
    rng = np.random.default_rng(2)
    t_steps, n = 5, 3
    a, b = RolloutStorage(t_steps, n, 2, 1), RolloutStorage(t_steps, n, 2, 1)
    rewards = rng.normal(size=(t_steps, n)).astype(np.float32)
    dones = rng.random((t_steps, n)) < 0.3
    values = torch.from_numpy(rng.normal(size=(t_steps, n)).astype(np.float32))
    for t in range(t_steps):
        args = (torch.zeros(n, 2), torch.zeros(n, 1), torch.zeros(n), values[t])
        a.add(*args, rewards[t], dones[t])
        b.add(*args, torch.from_numpy(rewards[t]), torch.from_numpy(dones[t]))
    last = torch.from_numpy(rng.normal(size=n).astype(np.float32))
    for s in (a, b):
        s.compute_returns(last, 0.95, 0.9)
    want_adv, want_ret = compute_gae(
        rewards, values.numpy(), dones.astype(np.float32), last.numpy(), 0.95, 0.9
    )
    for s in (a, b):
        np.testing.assert_array_equal(s.advantages.numpy(), want_adv)
        np.testing.assert_array_equal(s.returns.numpy(), want_ret)
    batches = list(b.minibatches(3))
    assert sum(len(x["obs"]) for x in batches) == t_steps * n


@pytest.mark.parametrize(
    ("backend", "env_device", "torch_device", "local_rank", "want"),
    [
        ("numba", None, "cpu", None, "cpu"),
        ("numba", None, "cuda", None, "cuda:0"),
        ("numba", None, "cuda:1", 1, "cuda:1"),
        ("numba", "cuda", "cpu", None, "cuda:0"),
        ("numba", "cuda", "cuda:2", 2, "cuda:2"),
        ("numba", "cpu", "cuda:0", None, "cpu"),
        ("isaac", None, "cuda:0", None, "cuda:0"),
        ("isaac", "cuda:1", "cpu", None, "cuda:1"),
        ("pybullet", None, "cuda:0", None, "cpu"),
    ],
)
def test_where_the_envs_step(backend, env_device, torch_device, local_rank, want):
    assert resolve_env_device(backend, env_device, torch_device, local_rank) == want


def test_bad_env_devices_are_refused_before_any_work(tmp_path, capsys):
    from policies.commands import train as train_cmd

    with pytest.raises(ValueError, match="pybullet backend steps on the CPU"):
        resolve_env_device("pybullet", "cuda", "cpu")
    assert "'cpu', 'cuda' or 'cuda:N'" in env_device_error("numba", "gpu0")
    out = tmp_path / "run"
    code = train_cmd.main(
        ["reach", "--backend", "pybullet", "--env-device", "cuda:0", "--out", str(out)]
    )
    assert code == 2 and not out.exists()
    assert "--env-device" in capsys.readouterr().err
    from sims.backends import numba_cuda

    if numba_cuda.cuda_available():
        pytest.skip("a CUDA device (or the simulator) is present: no error for numba on cuda")
    code = train_cmd.main(["reach", "--env-device", "cuda", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert "no CUDA device" in err and "NUMBA_ENABLE_CUDASIM=1" in err


def _record_make_env(monkeypatch):
    """Replace ``sims.make_env`` by one that records each call's backend and device and
    builds a CPU numba env instead (there is no Isaac Lab here)."""
    calls = []
    real = sims.make_env

    def fake(task, backend="numba", num_envs=1, seed=None, config=None, **kwargs):
        calls.append((backend, kwargs.pop("device", None)))
        return real(task, "numba", num_envs, seed=seed, config=config, **kwargs)

    monkeypatch.setattr(sims, "make_env", fake)
    return calls


def test_train_passes_the_device_to_the_isaac_env(tmp_path, monkeypatch):
    from policies.commands import train as train_cmd

    calls = _record_make_env(monkeypatch)
    base = ["reach", "--backend", "isaac", "--num-envs", "4", "--steps", "16"]
    base += ["--rollout-steps", "4", "--eval-every", "0", "--final-eval-episodes", "0"]
    base += ["--no-progress", "--no-tensorboard"]
    code = train_cmd.main([*base, "--out", str(tmp_path / "a"), "--env-device", "cuda:0"])
    assert code == 0 and calls == [("isaac", "cuda:0")]
    calls.clear()
    code = train_cmd.main([*base, "--out", str(tmp_path / "b"), "--device", "cpu"])
    assert code == 0 and calls == [("isaac", "cpu")]
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert summary["backend"] == "isaac" and summary["env_device"] == "cpu"


def test_eval_passes_the_device_to_the_isaac_env(monkeypatch, capsys):
    from miles_ros.commands import evaluate as eval_cmd
    from sims.backends import isaac

    calls = _record_make_env(monkeypatch)
    monkeypatch.setattr(isaac, "import_newton", lambda: None)
    argv = ["reach", "--backend", "isaac", "--episodes", "1", "--json"]
    assert eval_cmd.main([*argv, "--device", "cuda:0"]) == 0
    assert calls == [("isaac", "cuda:0")]
    assert json.loads(capsys.readouterr().out)["device"] == "cuda:0"
    calls.clear()
    assert eval_cmd.main(argv) == 0
    assert calls == [("isaac", None)]  # no --device: the backend's default


def test_eval_refuses_a_gpu_for_pybullet_and_names_make_isaac(capsys):
    from miles_ros.commands import evaluate as eval_cmd
    from sims.backends import isaac

    assert eval_cmd.main(["reach", "--device", "cuda", "--episodes", "1"]) == 2
    assert "pybullet backend steps on the CPU" in capsys.readouterr().err
    try:
        isaac.import_newton()
    except ImportError:
        pass
    else:
        pytest.skip("Isaac Lab is importable here: there is no error to see")
    assert eval_cmd.main(["reach", "--backend", "isaac", "--episodes", "1"]) == 2
    assert "make isaac" in capsys.readouterr().err
