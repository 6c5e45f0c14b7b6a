"""Sparse products with one set of values per block (attention heads, or the members of a batch of
runs): a graph's CSR structure repeated down the diagonal of one sparse matrix, so every block's
weighted sum over its rows runs in one sparse-dense product and no edges x blocks x channels tensor of
messages is ever formed. The backward is the transposed product and a sampled dense product."""

from __future__ import annotations

import warnings

import torch


def sort_by_destination(edge_index: torch.Tensor, num_nodes: int) -> torch.Tensor:
    """The permutation that orders edges by (destination, source), the order ``csr_structure`` wants."""
    return torch.argsort(edge_index[1] * num_nodes + edge_index[0])


def csr_structure(edge_index: torch.Tensor, rows: int, cols: int | None = None) -> dict[str, torch.Tensor]:
    """Row pointers of the matrix with an entry (destination, source) per edge and of its transpose, for
    edges already sorted by destination: ``t_order`` lists the edges by source, ``t_col`` their
    destinations in that order. ``cols`` (default ``rows``) counts the sources."""
    cols = rows if cols is None else cols
    src, dst = edge_index
    t_order = torch.argsort(src * rows + dst)
    counts = (torch.bincount(dst, minlength=rows), torch.bincount(src, minlength=cols))
    pointers = [torch.cat([torch.zeros(1, dtype=torch.long, device=c.device), c.cumsum(0)]) for c in counts]
    return {"crow": pointers[0], "col": src, "t_crow": pointers[1], "t_col": dst[t_order], "t_order": t_order,
            "shape": torch.tensor([rows, cols])}


def _csr(crow: torch.Tensor, col: torch.Tensor, values: torch.Tensor, shape: tuple[int, int]) -> torch.Tensor:
    with warnings.catch_warnings():  # "Sparse CSR tensor support is in beta state"
        warnings.simplefilter("ignore")
        return torch.sparse_csr_tensor(crow, col, values, shape)


def _product(matrix: torch.Tensor, dense: torch.Tensor) -> torch.Tensor:
    """``matrix @ dense`` for a CSR matrix; ``addmm`` with beta 0 into fresh memory is about 3x faster on
    the CPU than ``@`` (which zero-fills and copies), and ignores that memory's contents."""
    out = torch.empty(matrix.shape[0], dense.shape[1], dtype=dense.dtype, device=dense.device)
    return torch.addmm(out, matrix, dense, beta=0.0)


def _blocks(pointer: torch.Tensor, index: torch.Tensor, blocks: int, entries: int, width: int) -> tuple[torch.Tensor, torch.Tensor]:
    """One CSR structure repeated ``blocks`` times down the diagonal (``width`` columns per block)."""
    shift = torch.arange(blocks, device=pointer.device).unsqueeze(1)
    crow = torch.cat([(pointer[:-1] + shift * entries).flatten(), pointer.new_tensor([blocks * entries])])
    return crow, (index + shift * width).flatten()


class _BlockProduct(torch.autograd.Function):
    """``out[b, r] = sum over entries (r, c) of values[b, e] x[b, c]`` for every block ``b`` at once."""

    @staticmethod
    def forward(ctx, values, x, csr):  # values (B, E) in CSR order, x (B, cols, C)
        (blocks, entries), channels = values.shape, x.shape[2]
        rows, cols = (int(v) for v in csr["shape"])
        crow, col = _blocks(csr["crow"], csr["col"], blocks, entries, cols)
        flat, dense = values.reshape(-1), x.reshape(blocks * cols, channels)
        ctx.save_for_backward(flat, dense)
        ctx.csr, ctx.sizes = csr, (entries, blocks, rows, cols, channels)
        return _product(_csr(crow, col, flat, (blocks * rows, blocks * cols)), dense).view(blocks, rows, channels)

    @staticmethod
    @torch.autocast("cpu", enabled=False)  # a backward run inside autocast (autograd.grad there) stays fp32
    def backward(ctx, grad):
        flat, dense = ctx.saved_tensors
        csr, (entries, blocks, rows, cols, channels) = ctx.csr, ctx.sizes
        grad = grad.reshape(blocks * rows, channels)
        grad_values = grad_x = None
        if ctx.needs_input_grad[0]:
            crow, col = _blocks(csr["crow"], csr["col"], blocks, entries, cols)
            pattern = _csr(crow, col, torch.zeros_like(flat), (blocks * rows, blocks * cols))
            grad_values = torch.sparse.sampled_addmm(pattern, grad, dense.t(), beta=0.0).values().view(blocks, entries)
        if ctx.needs_input_grad[1]:
            t_crow, t_col = _blocks(csr["t_crow"], csr["t_col"], blocks, entries, rows)
            order = (csr["t_order"] + torch.arange(blocks, device=flat.device).unsqueeze(1) * entries).flatten()
            transposed = _csr(t_crow, t_col, flat[order], (blocks * cols, blocks * rows))
            grad_x = _product(transposed, grad).view(blocks, cols, channels)
        return grad_values, grad_x, None


HALF = frozenset({torch.bfloat16, torch.float16})  # no CSR product kernel for these on CPU


def block_sum(values: torch.Tensor, x: torch.Tensor, csr: dict[str, torch.Tensor]) -> torch.Tensor:
    """Block-major weighted sums: ``values`` (blocks, entries) in CSR order, ``x`` (blocks, sources,
    channels) -> (blocks, destinations, channels); each block's sum uses only its own rows of ``x``."""
    if not {values.dtype, x.dtype} & HALF and not torch.is_autocast_enabled(x.device.type):
        return _BlockProduct.apply(values, x, csr)
    # torch's CSR product has no bf16 kernel on CPU: under mixed precision the sum stays in fp32 (and autocast,
    # which would cast an fp32 product's operands to bf16, is off for it)
    with torch.autocast(x.device.type, enabled=False):
        return _BlockProduct.apply(values.float(), x.float(), csr)


def sparse_mm(matrix: torch.Tensor, dense: torch.Tensor) -> torch.Tensor:
    """``torch.sparse.mm(matrix, dense)``, in fp32 when ``dense`` is half precision or autocast is on (torch's
    sparse product has no bf16 backward on CPU: mixed dtypes fail there)."""
    if dense.dtype not in HALF and not torch.is_autocast_enabled(dense.device.type):
        return torch.sparse.mm(matrix, dense)
    with torch.autocast(dense.device.type, enabled=False):
        return torch.sparse.mm(matrix.float(), dense.float())


def attention_sum(values: torch.Tensor, x: torch.Tensor, csr: dict[str, torch.Tensor]) -> torch.Tensor:
    """Weighted sum of source rows at each destination, one weight per entry and head: ``values``
    (entries, heads) in CSR order, ``x`` (sources, heads, channels) -> (destinations, heads, channels)."""
    return block_sum(values.t(), x.transpose(0, 1).contiguous(), csr).transpose(0, 1)
