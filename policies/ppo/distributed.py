"""PPO on several processes with torch.distributed, as rsl_rl's multi-GPU runner: one
process (rank) per CPU share or GPU, started by ``torchrun`` (``torch.distributed.run``),
gloo on CPU and NCCL on CUDA. No process pool or socket protocol of our own.

What a distributed run shares (:class:`DistContext`, used by the runner's hooks; one
process uses :class:`SingleProcess`, the same methods with nothing to share):

- ``runner.num_envs`` is the total over all ranks: each rank steps
  ``num_envs / world_size`` envs (it must divide), so the batch of an update, the
  hyperparameters and ``total_steps`` mean the same on 1 or N ranks;
- rank ``r`` seeds its envs and generators with :func:`policies.ppo.envs.rank_seed`;
- rank 0's weights and normalizer are broadcast when :meth:`learn` starts (fresh,
  ``--init-from`` or ``--resume``: every rank loads the same checkpoint first);
- after each backward pass the gradients and the approximate KL are averaged
  (one all-reduce), so the clip, the KL early stop and the adaptive learning rate agree;
- the observation normalizer folds in every rank's rollout moments, in rank order (the
  exact parallel mean/variance merge), identically on every rank;
- the training episode statistics are merged and rank 0's wall time is adopted each
  update, so evaluation triggers and the time limit decide alike everywhere;
- a physics evaluation of E episodes runs E / world_size on each rank (rank ``r`` from
  seed ``eval_seed + r``) and the outcomes are gathered;
- rank 0 alone writes ``config.yaml``, logs, checkpoints and ``summary.json``.
"""

from __future__ import annotations

import datetime
import logging
import os
import sys
from dataclasses import dataclass

import numpy as np
import torch
import torch.distributed as dist

from policies.evaluation import EvalResult, merge_results

logger = logging.getLogger(__name__)

TORCHRUN_ENV = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")
"""The variables torchrun sets for each worker; ``--distributed`` needs them."""

TIMEOUT_S = float(os.environ.get("MILES_DIST_TIMEOUT_S", "600"))
"""How long a collective waits for the other ranks before it fails (s)."""


class DistributedError(RuntimeError):
    """A distributed run cannot start (outside torchrun, bad device, bad env split)."""


def launched_by_torchrun() -> bool:
    """Whether this process is a torchrun worker (its rendezvous variables are set)."""
    return all(name in os.environ for name in TORCHRUN_ENV)


def resolve_device(device: str) -> torch.device:
    """``cpu``, ``cuda`` or ``cuda:N`` as a torch device; raises DistributedError when CUDA
    is asked for and there is no such GPU (before any work)."""
    try:
        dev = torch.device(device)
    except RuntimeError:
        dev = None
    if dev is None or dev.type not in ("cpu", "cuda"):
        raise DistributedError(f"--device {device!r}: choose cpu, cuda or cuda:N")
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise DistributedError(
                f"--device {device}: no CUDA GPU is visible to torch here "
                f"(torch {torch.__version__}, built with CUDA {torch.version.cuda}); "
                "train with --device cpu"
            )
        count = torch.cuda.device_count()
        if dev.index is not None and dev.index >= count:
            raise DistributedError(f"--device {device}: this machine has {count} GPU(s)")
    return dev


@dataclass
class EpisodeView:
    """The training episode statistics merged over ranks (what EpisodeStats reports)."""

    success_rate: float | None
    """Mean success of every rank's window (None before the first finished episode)."""
    mean_return: float | None
    """Mean return of every rank's window."""
    mean_length: float | None
    """Mean episode length of every rank's window."""


class DistContext:
    """This process's place in a distributed run, and the collectives the runner uses."""

    def __init__(self, rank: int, world_size: int, local_rank: int, device: torch.device):
        self.rank = rank
        """Global rank (0: the one that writes)."""
        self.world_size = world_size
        """Number of ranks."""
        self.local_rank = local_rank
        """Rank on this machine (selects the GPU)."""
        self.device = device
        """Where this rank's model and update run."""

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def backend(self) -> str:
        return dist.get_backend()

    @property
    def gradient_hook(self):
        """What the PPO update calls after each backward pass: :meth:`average_gradients`."""
        return self.average_gradients

    # ------------------------------------------------------------------ training
    def local_envs(self, num_envs: int) -> int:
        """This rank's share of ``num_envs`` (the total); raises when it does not divide."""
        if num_envs % self.world_size:
            raise DistributedError(
                f"--num-envs {num_envs} does not split over {self.world_size} ranks; "
                f"give a multiple of {self.world_size} (it is the total over all ranks)"
            )
        return num_envs // self.world_size

    @torch.no_grad()
    def broadcast_module(self, module: torch.nn.Module) -> None:
        """Rank 0's parameters and buffers (the normalizer) to every rank."""
        for tensor in [*module.parameters(), *module.buffers()]:
            dist.broadcast(tensor.data, src=0)

    @torch.no_grad()
    def average_gradients(self, params: list[torch.Tensor], scalars: list[float]) -> list[float]:
        """Average the gradients of ``params`` (a missing gradient counts as zeros) and
        ``scalars`` over ranks in one all-reduce (:data:`policies.ppo.algorithm.GradientHook`)."""
        grads = [p.grad if p.grad is not None else torch.zeros_like(p) for p in params]
        flat = torch.cat([g.reshape(-1) for g in grads])
        extra = torch.tensor(scalars, dtype=flat.dtype, device=flat.device)
        buffer = torch.cat([flat, extra])
        dist.all_reduce(buffer, op=dist.ReduceOp.SUM)
        buffer /= self.world_size
        offset = 0
        for p, g in zip(params, grads, strict=True):
            n = g.numel()
            p.grad = buffer[offset : offset + n].view_as(p).clone()
            offset += n
        return [float(v) for v in buffer[offset:].tolist()]

    @torch.no_grad()
    def merge_normalizer(self, normalizer, obs: torch.Tensor) -> None:
        """Fold every rank's rollout observations into ``normalizer``: each rank's batch
        moments (float64) are gathered and merged in rank order, the same on every rank."""
        dim = normalizer.mean.shape[0]
        x = obs.reshape(-1, dim).to(device=normalizer.mean.device, dtype=torch.float64)
        local = torch.cat(
            [
                torch.tensor([float(x.shape[0])], dtype=torch.float64, device=x.device),
                x.mean(dim=0),
                x.var(dim=0, unbiased=False),
            ]
        )
        gathered = [torch.empty_like(local) for _ in range(self.world_size)]
        dist.all_gather(gathered, local)
        for moments in gathered:
            count = int(moments[0].item())
            normalizer.update_from_moments(moments[1 : 1 + dim], moments[1 + dim :], count)

    def merge_episode_stats(self, episodes) -> EpisodeView:
        """The training success, return and length windows of every rank together."""
        local = torch.tensor(
            [
                float(np.sum(episodes.success)),
                float(len(episodes.success)),
                float(np.sum(episodes.episode_return)),
                float(np.sum(episodes.episode_length)),
            ],
            dtype=torch.float64,
            device=self._collective_device(),
        )
        dist.all_reduce(local, op=dist.ReduceOp.SUM)
        succ, n, ret, length = local.tolist()
        if n == 0:
            return EpisodeView(None, None, None)
        return EpisodeView(succ / n, ret / n, length / n)

    def from_main(self, value: float) -> float:
        """Rank 0's ``value`` on every rank (e.g. the wall time the time limit reads)."""
        t = torch.tensor([value], dtype=torch.float64, device=self._collective_device())
        dist.broadcast(t, src=0)
        return float(t.item())

    def object_from_main(self, obj):
        """Rank 0's picklable ``obj`` on every rank (e.g. the run directory)."""
        box = [obj]
        dist.broadcast_object_list(box, src=0)
        return box[0]

    def all_true(self, flag: bool) -> bool:
        """Whether ``flag`` holds on every rank."""
        t = torch.tensor([0.0 if flag else 1.0], device=self._collective_device())
        dist.all_reduce(t, op=dist.ReduceOp.SUM)
        return t.item() == 0.0

    # ------------------------------------------------------------------ evaluation
    def episode_share(self, episodes: int) -> int:
        """This rank's part of an evaluation of ``episodes`` episodes (the remainder goes to
        the lowest ranks)."""
        return episodes // self.world_size + (1 if self.rank < episodes % self.world_size else 0)

    def eval_seed(self, seed: int) -> int:
        """The seed of this rank's evaluation episodes (rank 0: ``seed``)."""
        return seed + self.rank

    def gather_eval(self, result: EvalResult | None, seed: int) -> EvalResult:
        """Every rank's evaluation outcomes merged into one result (on every rank)."""
        parts: list = [None] * self.world_size
        dist.all_gather_object(parts, result)
        return merge_results(parts, seed)

    # ------------------------------------------------------------------ lifetime
    def _collective_device(self) -> torch.device:
        return self.device if dist.get_backend() == "nccl" else torch.device("cpu")

    def close(self) -> None:
        if dist.is_initialized():
            dist.destroy_process_group()


class SingleProcess:
    """The one-process stand-in of :class:`DistContext`: the same methods, with nothing to
    share (rank 0 of 1), so the runner reads the same with or without torch.distributed."""

    rank = 0
    world_size = 1
    local_rank = None
    is_main = True
    gradient_hook = None
    """No hook: the PPO update uses its own gradients."""

    def __init__(self, device: torch.device):
        self.device = device
        """Where the model and the update run."""

    def local_envs(self, num_envs: int) -> int:
        return num_envs

    def broadcast_module(self, module: torch.nn.Module) -> None:
        pass

    def merge_normalizer(self, normalizer, obs: torch.Tensor) -> None:
        normalizer.update(obs)

    def merge_episode_stats(self, episodes):
        return episodes

    def from_main(self, value: float) -> float:
        return value

    def all_true(self, flag: bool) -> bool:
        return flag

    def episode_share(self, episodes: int) -> int:
        return episodes

    def eval_seed(self, seed: int) -> int:
        return seed

    def gather_eval(self, result: EvalResult | None, seed: int) -> EvalResult | None:
        return result


def init_distributed(device: str = "cpu") -> DistContext:
    """Join the torchrun job this process belongs to (env:// rendezvous): gloo for
    ``device`` cpu, NCCL for cuda (``cuda`` alone becomes ``cuda:LOCAL_RANK``). Raises
    DistributedError outside torchrun or without the GPU asked for, before joining."""
    if not launched_by_torchrun():
        missing = ", ".join(n for n in TORCHRUN_ENV if n not in os.environ)
        raise DistributedError(
            f"--distributed runs under torchrun, which sets {missing}: start it with "
            "`python -m torch.distributed.run --nproc-per-node N -m miles_ros.cli train ... "
            "--distributed`, or use `miles train ... --nproc N`"
        )
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    local_rank = int(os.environ["LOCAL_RANK"])
    dev = resolve_device(device)
    if dev.type == "cuda":
        if dev.index is None:
            dev = resolve_device(f"cuda:{local_rank}")
        torch.cuda.set_device(dev)
    backend = "nccl" if dev.type == "cuda" else "gloo"
    dist.init_process_group(
        backend,
        rank=rank,
        world_size=world,
        timeout=datetime.timedelta(seconds=TIMEOUT_S),
        **({"device_id": dev} if dev.type == "cuda" else {}),
    )
    logger.info("rank %d of %d (%s on %s)", rank, world, backend, dev)
    return DistContext(rank, world, local_rank, dev)


# ---------------------------------------------------------------------- --nproc
def launch_error(nproc: int | None, distributed: bool, device: str, prog: str) -> str | None:
    """What is wrong with ``--nproc`` / ``--distributed`` / ``--device``, else None."""
    if nproc is not None and nproc < 1:
        return f"--nproc must be >= 1, got {nproc}"
    if nproc is not None and distributed:
        return "--nproc starts torchrun with --distributed itself: give one of them"
    if distributed and not launched_by_torchrun():
        return (
            "--distributed runs under torchrun (RANK/WORLD_SIZE are not set): use "
            f"`{prog} ... --nproc N`, or `python -m torch.distributed.run --nproc-per-node N "
            "-m miles_ros.cli train ... --distributed`"
        )
    try:
        resolve_device(device)
    except DistributedError as exc:
        return str(exc)
    return None


def strip_option(argv: list[str], option: str) -> list[str]:
    """``argv`` without ``option VALUE`` / ``option=VALUE``."""
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == option:
            skip = True
        elif not arg.startswith(option + "="):
            out.append(arg)
    return out


def torchrun_args(nproc: int, entry: list[str], argv: list[str]) -> list[str]:
    """torchrun's arguments that run ``python entry argv --distributed`` on ``nproc``
    local ranks (``--standalone``: a rendezvous on a free local port)."""
    return [
        "--standalone",
        "--nnodes",
        "1",
        "--nproc-per-node",
        str(nproc),
        *entry,
        *strip_option(argv, "--nproc"),
        "--distributed",
    ]


def launch_local(nproc: int, entry: list[str], argv: list[str]) -> int:
    """Run torchrun (:func:`torchrun_args`) in this process, its agent starting the ranks,
    and wait: 0, 1 when a rank failed (torchrun's report of it on stderr), 130 after
    Ctrl-C, which reached the ranks too (they save a checkpoint and stop). In this
    process rather than a ``python -m torch.distributed.run`` of its own: the same agent,
    without a second interpreter importing torch (~2 CPU s a launch)."""
    from torch.distributed.elastic.multiprocessing.api import SignalException
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
    from torch.distributed.run import parse_args, run

    args = torchrun_args(nproc, entry, argv)
    logger.info("starting %d ranks: torchrun %s", nproc, " ".join(args))
    try:
        run(parse_args(args))
    except ChildFailedError as exc:
        print(exc.format_msg(), file=sys.stderr)
        return 1
    except SignalException as exc:
        return 128 + int(exc.sigval)
    except KeyboardInterrupt:
        return 130
    return 0
