"""Plain-PyTorch models for the reference benchmark, written from the masked-mixers spec
(shared/reference/masked-mixers-spec.md, sections 0, 1 and 3), not from MixerLab's C++: the flat
masked mixer, a Llama-style decoder (HF LlamaForCausalLM's layout) and the Transfixer. No Mamba:
the reference has no selective-scan kernel, so mamba cells are reported as skipped.

Every model takes token ids [B, T] and returns logits [B, T, V]."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def causal_attention(q, k, v):
    """Causal scaled dot-product attention over [B, H, T, hd]: PyTorch's fused
    F.scaled_dot_product_attention where it exists (2.0 and later), else the same arithmetic written
    out (softmax(q k^T / sqrt(hd) + causal mask) v), so the reference also runs on Debian's 1.13."""
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    t = q.size(-2)
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.size(-1))
    future = torch.ones(t, t, dtype=torch.bool, device=q.device).triu(1)
    return torch.matmul(scores.masked_fill(future, float("-inf")).softmax(dim=-1), v)


class MaskedTokenMix(nn.Module):
    """Conv1d(T, T, 1) over tokens as channels: y[b] = tril(W) x[b] + bias (one [T,T] x [T,D] matmul)."""

    def __init__(self, context):
        super().__init__()
        conv = nn.Conv1d(context, context, 1)  # PyTorch's default init, as the research's mixers
        self.weight = nn.Parameter(conv.weight.detach().squeeze(-1).clone())
        self.bias = nn.Parameter(conv.bias.detach().clone())
        self.register_buffer("mask", torch.ones(context, context).tril(), persistent=False)

    def forward(self, x):  # x [B, T, D]
        return torch.matmul(self.weight * self.mask, x) + self.bias[:, None]


class MixerBlock(nn.Module):
    def __init__(self, d_model, context, ff_mult=4):
        super().__init__()
        self.seq_layernorm = nn.LayerNorm(d_model)
        self.patch_layernorm = nn.LayerNorm(d_model)
        self.conv = MaskedTokenMix(context)
        self.patch_ff = nn.Sequential(
            nn.Linear(d_model, ff_mult * d_model), nn.GELU(), nn.Linear(ff_mult * d_model, d_model)
        )

    def forward(self, x):
        x = x + self.conv(self.seq_layernorm(x))
        return x + self.patch_ff(self.patch_layernorm(x))


class MaskedMixer(nn.Module):
    """Embedding (no positions), N pre-norm mixer blocks, no final norm, Linear(D, V) head without bias."""

    def __init__(self, vocab, d_model, layers, context):
        super().__init__()
        self.wte = nn.Embedding(vocab, d_model)
        self.blocks = nn.ModuleList(MixerBlock(d_model, context) for _ in range(layers))
        self.lm_head = nn.Linear(d_model, vocab, bias=False)

    def forward(self, ids):
        x = self.wte(ids)
        for block in self.blocks:
            x = block(x)
        return self.lm_head(x)


class RMSNorm(nn.Module):
    def __init__(self, d_model, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d_model))
        self.eps = eps

    def forward(self, x):
        x32 = x.float()
        normed = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * normed.to(x.dtype)


def rotary_tables(context, head_dim, theta=10000.0, device=None):
    inv_freq = 1.0 / theta ** (torch.arange(0, head_dim, 2, device=device).float() / head_dim)
    angles = torch.outer(torch.arange(context, device=device).float(), inv_freq)
    angles = torch.cat([angles, angles], dim=-1)  # HF rotate-half pairing: i with i + head_dim/2
    return angles.cos(), angles.sin()


def rotate_half(x):
    first, second = x.chunk(2, dim=-1)
    return torch.cat([-second, first], dim=-1)


class LlamaLayer(nn.Module):
    """Pre-norm: h = x + o(Attn(RMSNorm(x))); out = h + down(SiLU(gate(n)) * up(n)), n = RMSNorm(h).
    SwiGLU width ff_mult * D (the research used 4D), no biases, causal SDPA, RoPE on q and k.
    With transfixer=True the attention output a also passes a masked token mix: h = x + a + mix(a)."""

    def __init__(self, d_model, heads, context, ff_mult=4, transfixer=False):
        super().__init__()
        self.heads, self.head_dim = heads, d_model // heads
        self.input_layernorm = RMSNorm(d_model)
        self.post_attention_layernorm = RMSNorm(d_model)
        self.q_proj, self.k_proj, self.v_proj, self.o_proj = (
            nn.Linear(d_model, d_model, bias=False) for _ in range(4)
        )
        self.gate_proj = nn.Linear(d_model, ff_mult * d_model, bias=False)
        self.up_proj = nn.Linear(d_model, ff_mult * d_model, bias=False)
        self.down_proj = nn.Linear(ff_mult * d_model, d_model, bias=False)
        self.mix = MaskedTokenMix(context) if transfixer else None

    def forward(self, x, cos, sin):
        b, t, d = x.shape
        n = self.input_layernorm(x)

        def split(z):
            return z.view(b, t, self.heads, self.head_dim).transpose(1, 2)

        q, k, v = split(self.q_proj(n)), split(self.k_proj(n)), split(self.v_proj(n))
        q = q * cos[:t] + rotate_half(q) * sin[:t]
        k = k * cos[:t] + rotate_half(k) * sin[:t]
        attended = causal_attention(q, k, v)
        a = self.o_proj(attended.transpose(1, 2).reshape(b, t, d))
        h = x + a + (self.mix(a) if self.mix is not None else 0)
        n = self.post_attention_layernorm(h)
        return h + self.down_proj(F.silu(self.gate_proj(n)) * self.up_proj(n))


class Llama(nn.Module):
    def __init__(self, vocab, d_model, layers, context, heads=4, transfixer=False):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, d_model)
        self.layers = nn.ModuleList(LlamaLayer(d_model, heads, context, transfixer=transfixer) for _ in range(layers))
        self.norm = RMSNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab, bias=False)
        for module in self.modules():  # HF init: N(0, 0.02) for Linear and Embedding (the token mix keeps its own)
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, std=0.02)
        cos, sin = rotary_tables(context, d_model // heads)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)

    def forward(self, ids):
        x = self.embed_tokens(ids)
        for layer in self.layers:
            x = layer(x, self.cos, self.sin)
        return self.lm_head(self.norm(x))


def build_model(arch, vocab, d_model, layers, context, heads=4):
    if arch in ("mixer", "masked_mixer"):
        return MaskedMixer(vocab, d_model, layers, context)
    if arch == "llama":
        return Llama(vocab, d_model, layers, context, heads)
    if arch == "transfixer":
        return Llama(vocab, d_model, layers, context, heads, transfixer=True)
    raise ValueError(f"the PyTorch reference has no {arch!r} model (mamba is not implemented here)")


def training_flops_per_token(arch, vocab, d_model, layers, context, ff_mult=4):
    """MixerLab's model_cost formulas: 3 x forward FLOPs/token, forward = the matrix products at 2 FLOPs
    per multiply-add (the masked zeros of the token mix and the full T x T attention included) + the
    2*D*V head. Flat mixer layer: 2*T*D + 4*m*D^2; Llama layer: 8*D^2 + 4*T*D + 6*m*D^2;
    Transfixer layer: the Llama layer + 2*T*D."""
    d, t, m = float(d_model), float(context), float(ff_mult)
    if arch in ("mixer", "masked_mixer"):
        layer = 2 * t * d + 4 * m * d * d
    elif arch == "llama":
        layer = 8 * d * d + 4 * t * d + 6 * m * d * d
    elif arch == "transfixer":
        layer = 8 * d * d + 4 * t * d + 6 * m * d * d + 2 * t * d
    else:
        raise ValueError(arch)
    return 3.0 * (layers * layer + 2 * d * vocab)


def shifted_cross_entropy(logits, ids):
    """The output at t predicts token t + 1; the last position is never scored."""
    return F.cross_entropy(logits[:, :-1].float().reshape(-1, logits.size(-1)), ids[:, 1:].reshape(-1))


def count_parameters(model):
    return sum(p.numel() for p in model.parameters())


def causal_check(model, vocab, context):
    """Changing token j must not change the logits before j (a quick self-check of the masks)."""
    ids = torch.randint(0, vocab, (1, context))
    with torch.no_grad():
        a = model(ids)
        ids[0, context // 2] = (ids[0, context // 2] + 1) % vocab
        b = model(ids)
    return torch.allclose(a[:, : context // 2], b[:, : context // 2], atol=1e-5) and not math.isnan(a.sum().item())
