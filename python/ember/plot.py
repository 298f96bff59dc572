"""`ember inspect --plot`: the memory timeline of a program's plan, drawn with matplotlib.

One panel per region: op index across, byte offset up, each arena buffer a box from its first
to its last op, labelled with its tensor name inside it (clipped to the box, so labels never
run over each other). Views share their source's box. A buffer written in place over the input
it consumes shows as two boxes that overlap at that one op. A dashed line marks the peak op.
"""

from __future__ import annotations


def plot_memory(info: dict, path: str, title: str = "") -> None:
    """Draws `info` (Program.inspect(), i.e. `ember inspect --json`) to `path` (PNG)."""
    try:
        import matplotlib
    except ImportError:
        raise ImportError("ember inspect --plot draws with matplotlib: pip install 'ember[plot]'") from None

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    mem = info["memory"]
    regions = [r for r in mem["regions"]]
    buffers = [b for b in mem["buffers"] if b["view_of"] < 0 and b["bytes"] > 0]
    num_ops = max(1, len(info["ops"]))
    fig, axes = plt.subplots(len(regions) or 1, 1, figsize=(10, 3.2 * max(1, len(regions))), squeeze=False)
    colors = plt.get_cmap("tab20").colors
    for ax, region in zip(axes[:, 0], regions):
        mine = [b for b in buffers if b["region"] == region["name"]]
        for k, b in enumerate(mine):
            first, last = max(0, b["first_op"]), max(0, b["last_op"])
            box = ax.add_patch(Rectangle((first - 0.45, b["offset"]), last - first + 0.9, b["bytes"],
                                         facecolor=colors[k % len(colors)], edgecolor="black", linewidth=0.5,
                                         alpha=0.75))
            if b["bytes"] > 0.04 * max(1, region["bytes"]):
                label = ax.text(first - 0.4, b["offset"] + b["bytes"] / 2, b["name"], fontsize=6, va="center")
                label.set_clip_path(box)
        peak = mem["peak_op_index"]
        if 0 <= peak < num_ops:
            ax.axvline(peak, color="red", linestyle="--", linewidth=1)
            ax.text(peak, max(1, region["bytes"]), f" peak: op {peak}", color="red", fontsize=7, va="top")
        ax.set_xlim(-0.7, num_ops - 0.3)
        ax.set_ylim(0, max(1, region["bytes"]))
        ax.set_xlabel("op")
        ax.set_ylabel("offset (bytes)")
        ax.set_title(f"{region['name']}: {region['bytes']:,} B planned; op-by-op bound "
                     f"{mem['lower_bound_bytes']:,} B", fontsize=9)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
