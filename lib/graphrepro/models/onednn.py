"""``nn.Linear`` with its fp32 CPU product in oneDNN rather than MKL: the forward pass and the input's
gradient through ``torch.ops.mkldnn._linear_pointwise`` on ordinary (strided) tensors, the weight's gradient
and everything else as torch computes them. The same function; only rounding differs. On AMD EPYC, MKL's fp32
product is slow for Peptides' narrow layers (``bench --chapter lrgb-head`` measures by how much)."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


def unavailable() -> str | None:
    """Why oneDNN's product cannot run here (None when it can)."""
    if not torch.backends.mkldnn.is_available() or not hasattr(torch.ops.mkldnn, "_linear_pointwise"):
        return "this torch build has no oneDNN (mkldnn) linear kernel; train without matmul 'onednn'"
    return None


def _product(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    """x Wᵀ + b by oneDNN."""
    return torch.ops.mkldnn._linear_pointwise(x, weight, bias, "none", [], "")


class _Linear(torch.autograd.Function):
    """x Wᵀ + b on 2-D fp32 CPU tensors: oneDNN forward and input gradient, MKL weight gradient (oneDNN was
    no faster on that tall reduction)."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
        ctx.save_for_backward(x, weight)
        ctx.has_bias = bias is not None
        return _product(x, weight, bias)

    @staticmethod
    def backward(ctx, grad: torch.Tensor):
        x, weight = ctx.saved_tensors
        grad = grad.contiguous()
        grad_x = _product(grad, weight.t().contiguous(), None) if ctx.needs_input_grad[0] else None
        grad_w = grad.t() @ x if ctx.needs_input_grad[1] else None
        grad_b = grad.sum(0) if ctx.has_bias and ctx.needs_input_grad[2] else None
        return grad_x, grad_w, grad_b


class OneDNNLinear(nn.Linear):
    """``nn.Linear`` whose fp32 product on a CPU is oneDNN's; under autocast, on other devices or dtypes it is
    ``nn.Linear`` itself."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.device.type != "cpu" or x.dtype != torch.float32 or torch.is_autocast_enabled("cpu"):
            return F.linear(x, self.weight, self.bias)
        flat = x.reshape(-1, x.shape[-1])
        return _Linear.apply(flat, self.weight, self.bias).view(*x.shape[:-1], self.out_features)


def use_onednn(model: nn.Module) -> nn.Module:
    """``model`` with every plain ``nn.Linear`` turned into a ``OneDNNLinear`` (same parameters, so the same
    initialisation); refused where this torch has no oneDNN."""
    reason = unavailable()
    if reason:
        raise RuntimeError(reason)
    for module in model.modules():
        if type(module) is nn.Linear:
            module.__class__ = OneDNNLinear
    return model
