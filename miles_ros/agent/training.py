"""Fit the planner's LoRA adapter on generated goal -> plan pairs (CPU, minutes).

Loss on plan tokens only (the prompt is masked). Plan lines are tokenized line by line
and JSON plans exactly as constrained decoding will produce them
(:func:`json_target_ids`), so training and planning see the same token boundaries.
"""

from __future__ import annotations

import logging
import math
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from miles_ros.agent.constrained import PlanGrammar, TokenIndex
from miles_ros.agent.datagen import GENERATOR_VERSION, Example, generate
from miles_ros.agent.grounding import DONE, REFUSE, Step
from miles_ros.agent.prompts import PlanText
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.world import World

log = logging.getLogger(__name__)

LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


@dataclass
class TrainConfig:
    """Adapter training settings (all recorded in the adapter card)."""

    examples: int = 4000
    """Generated goal -> plan pairs."""
    steps: int = 500
    """Optimizer steps (stops earlier when ``max_minutes`` runs out)."""
    batch_size: int = 8
    """Examples per step."""
    lr: float = 3e-4
    """Peak AdamW learning rate (linear warm-up, cosine decay)."""
    warmup_steps: int = 20
    """Steps of linear warm-up."""
    rank: int = 16
    """LoRA rank on every attention and MLP projection."""
    alpha: int = 32
    """LoRA scaling numerator."""
    json_fraction: float = 0.2
    """Share of examples whose target is the JSON plan (generate mode)."""
    refusal_fraction: float = 0.15
    """Share of infeasible goals (target ``refuse``); see :mod:`miles_ros.agent.datagen`."""
    seed: int = 0
    """Seed of the data generator, LoRA init and batch order."""
    max_minutes: float = 30.0
    """Wall-clock budget for the optimizer loop."""
    threads: int = 0
    """torch threads (0: torch's default)."""
    targets: list[str] = field(default_factory=lambda: list(LORA_TARGETS))
    """Module names LoRA adapts."""
    negatives: int = 4096
    """Sampled-softmax size: the loss normalises over every token that occurs in a plan
    plus this many random vocabulary tokens per step (0: the full 262k vocabulary). The
    planner only ever compares plan tokens, so this keeps what matters at a tiny cost."""


def line_target_ids(lm, text: PlanText, ex: Example) -> tuple[list[int], list[int]]:
    """(input ids, labels) for a plan-lines example; labels are -100 on the prompt."""
    segs = text.segments(ex.goal, [], ex.notes)
    prompt = lm.encode_segments(segs)
    plan: list[int] = []
    for step in [Step(REFUSE)] if ex.refused else [*ex.steps, Step(DONE)]:
        plan += lm.encode(text.line(step))
    return prompt + plan, [-100] * len(prompt) + plan


def json_target_ids(grammar: PlanGrammar, index: TokenIndex, encode, target: str) -> list[int]:
    """Token ids of ``target`` as constrained decoding produces them: forced stretches
    tokenized as a whole, choices as the longest allowed token that matches the target."""
    state, pos, ids = grammar.initial, 0, []
    while True:
        forced = grammar.forced(state)
        if forced:
            if not target.startswith(forced, pos):
                raise ValueError(f"target leaves the grammar at {target[pos:]!r}")
            ids += encode(forced)
            state, pos = grammar.feed(state, forced), pos + len(forced)
            if grammar.is_complete(state):
                return ids
        allowed = index.allowed(grammar, state)
        best = max(
            (t for t in allowed if target.startswith(index.text[t], pos)),
            key=lambda t: len(index.text[t]),
            default=None,
        )
        if best is None:
            raise ValueError(f"no token continues {target[pos:]!r}")
        ids.append(best)
        state, pos = allowed[best], pos + len(index.text[best])
        if grammar.is_complete(state):
            return ids


def build_dataset(lm, registry: SkillRegistry, world: World, cfg: TrainConfig):
    """Tokenized (ids, labels) pairs for ``cfg.examples`` generated examples."""
    text = PlanText(registry, world.names)
    grammar = PlanGrammar(registry, world.names, prefix=" ")
    index = TokenIndex(lm.tokenizer)
    data = []
    examples = generate(
        world,
        cfg.examples,
        seed=cfg.seed,
        json_fraction=cfg.json_fraction,
        refusal_fraction=cfg.refusal_fraction,
        registry=registry,
    )
    for ex in examples:
        if ex.json_format:
            prompt = lm.encode(text.json_prompt(ex.goal, ex.notes), bos=True)
            plan = json_target_ids(grammar, index, lm.encode, " " + text.json_plan(ex.steps))
            data.append((prompt + plan, [-100] * len(prompt) + plan))
        else:
            data.append(line_target_ids(lm, text, ex))
    return data


def train_adapter(
    lm,
    registry: SkillRegistry,
    world: World,
    cfg: TrainConfig,
    out_dir: Path,
    progress=None,
    init_adapter: Path | None = None,
) -> dict:
    """Wrap ``lm.model`` with LoRA (new, or ``init_adapter`` to continue training one),
    fit it, save the adapter to ``out_dir``; returns stats."""
    import torch
    from peft import LoraConfig, PeftModel, get_peft_model

    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    torch.set_grad_enabled(True)
    t0 = time.perf_counter()
    data = build_dataset(lm, registry, world, cfg)
    data_s = time.perf_counter() - t0
    if init_adapter is not None:
        model = PeftModel.from_pretrained(lm.model, str(init_adapter), is_trainable=True)
    else:
        model = get_peft_model(
            lm.model,
            LoraConfig(
                r=cfg.rank,
                lora_alpha=cfg.alpha,
                lora_dropout=0.0,
                target_modules=cfg.targets,
                task_type="CAUSAL_LM",
            ),
        )
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    params = [p for p in model.parameters() if p.requires_grad]
    optim = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=0.0)
    decoder = model.get_decoder()
    head = model.get_output_embeddings().weight
    pad = lm.tokenizer.pad_token_id or 0
    rng = random.Random(cfg.seed)
    plan_vocab = sorted({t for _, labels in data for t in labels if t != -100})
    vocab_size = head.shape[0]
    order: list[int] = []
    losses: list[float] = []
    model.train()
    t1 = time.perf_counter()
    step = 0
    for step in range(1, cfg.steps + 1):
        if not order:
            order = list(range(len(data)))
            rng.shuffle(order)
            chunk = cfg.batch_size * 32  # similar lengths per batch, less padding
            order = [
                i
                for k in range(0, len(order), chunk)
                for i in sorted(order[k : k + chunk], key=lambda j: len(data[j][0]))
            ]
        batch = [data[order.pop()] for _ in range(min(cfg.batch_size, len(order) or 1))]
        width = max(len(ids) for ids, _ in batch)
        ids = torch.tensor([i + [pad] * (width - len(i)) for i, _ in batch])
        labels = torch.tensor([lab + [-100] * (width - len(lab)) for _, lab in batch])
        mask = torch.tensor([[1] * len(i) + [0] * (width - len(i)) for i, _ in batch])
        hidden = decoder(input_ids=ids, attention_mask=mask).last_hidden_state
        target = labels[:, 1:]
        keep = target != -100
        if cfg.negatives:
            extra = torch.randint(0, vocab_size, (cfg.negatives,))
            subset = torch.unique(torch.cat([torch.tensor(plan_vocab), extra]))
            remap = torch.full((vocab_size,), -1, dtype=torch.long)
            remap[subset] = torch.arange(len(subset))
            logits = hidden[:, :-1][keep] @ head[subset].T
            loss = torch.nn.functional.cross_entropy(logits, remap[target[keep]])
        else:
            logits = hidden[:, :-1][keep] @ head.T
            loss = torch.nn.functional.cross_entropy(logits, target[keep])
        scale = min(1.0, step / max(cfg.warmup_steps, 1))
        scale *= 0.5 * (1 + math.cos(math.pi * min(step / cfg.steps, 1.0)))
        for group in optim.param_groups:
            group["lr"] = cfg.lr * max(scale, 0.02)
        optim.zero_grad(set_to_none=True)
        loss.backward()
        optim.step()
        losses.append(float(loss.detach()))
        if progress is not None:
            progress(step, float(loss), time.perf_counter() - t1)
        if time.perf_counter() - t1 > cfg.max_minutes * 60:
            log.warning("time budget reached after %d steps", step)
            break
    train_s = time.perf_counter() - t1
    model.eval()
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out_dir), safe_serialization=True)
    tail = losses[-20:] or [float("nan")]
    return {
        "generator_version": GENERATOR_VERSION,
        "config": asdict(cfg),
        "steps_done": step,
        "examples_seen": step * cfg.batch_size,
        "plan_vocabulary": len(plan_vocab),
        "trainable_parameters": int(trainable),
        "data_build_s": round(data_s, 1),
        "wall_time_s": round(train_s, 1),
        "final_loss": round(sum(tail) / len(tail), 4),
        "first_loss": round(losses[0], 4) if losses else None,
        "model": model,
    }
