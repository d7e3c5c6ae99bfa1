"""A drawing of a planar mechanism in a configuration (matplotlib): bodies as bars or plates through
their joint points, revolute joints as circles (a triangle under a pivot on the ground), guides and
slots as lines (solid on the ground, dashed in a body)."""

from __future__ import annotations

import io

import numpy as np

from ..planar import PinInSlot, Prismatic
from ..planar.joints import pose, rotation


def joint_points(model, x) -> list:
    """Per joint: (global point of p_i on body i, global point of p_j on body j), each (2,), at x (n,)."""
    out = []
    for joint in model.joints:
        pts = []
        for body, p in ((joint.body_i, joint.p_i), (joint.body_j, joint.p_j)):
            r, th = pose(x, body)
            pts.append(np.asarray(r) + rotation(th) @ np.asarray(p, float))
        out.append(tuple(pts))
    return out


def draw(ax, mechanism, q, body_names, joint_names):
    """Draw ``mechanism`` at joint coordinates q (k1,) into the matplotlib axes ``ax``."""
    model = mechanism.model
    x = mechanism.minimal.coords.g(np.asarray(q, float))
    points = joint_points(model, x)
    centres = np.reshape(x, (-1, 3))[:, :2]
    every = np.vstack([*centres, *[p for pair in points for p in pair]])
    size = max(float(np.ptp(every[:, 0])), float(np.ptp(every[:, 1])), 1e-3)
    colours = [f"C{b % 10}" for b in range(len(model.bodies))]
    for b, centre in enumerate(centres, 1):  # each body through its joint points
        pts = [pi for joint, (pi, pj) in zip(model.joints, points) if joint.body_i == b]
        pts += [pj for joint, (pi, pj) in zip(model.joints, points) if joint.body_j == b]
        pts = np.array(pts) if pts else centre[None, :]
        if len(pts) >= 3:  # a plate: the polygon of its points around the centre
            order = np.argsort(np.arctan2(pts[:, 1] - pts[:, 1].mean(), pts[:, 0] - pts[:, 0].mean()))
            ax.fill(pts[order, 0], pts[order, 1], color=colours[b - 1], alpha=0.3)
        for p in pts:
            ax.plot([centre[0], p[0]], [centre[1], p[1]], color=colours[b - 1], lw=4, solid_capstyle="round")
        ax.plot(*centre, "o", color="k", ms=3)
        ax.annotate(body_names[b], centre, textcoords="offset points", xytext=(4, 4), fontsize=8,
                    color=colours[b - 1])
    for joint, name, (pi, pj) in zip(model.joints, joint_names, points):
        if isinstance(joint, (Prismatic, PinInSlot)):  # the guide or slot of body j through the contact
            e = rotation(pose(x, joint.body_j)[1]) @ np.asarray(joint.e_j, float)
            ends = np.array([pi - 0.3 * size * e, pi + 0.3 * size * e])
            style = dict(color="0.4", lw=1.5, ls="-" if joint.body_j == 0 else "--")
            ax.plot(ends[:, 0], ends[:, 1], **style)
            ax.plot(*pi, "s", mfc="w", mec="k", ms=6)
        else:
            ax.plot(*pi, "o", mfc="w", mec="k", ms=7)
            if joint.body_j == 0:  # a pivot on the ground (a guide on the ground is drawn solid)
                ax.plot(*pj, "^", color="0.3", ms=9, zorder=0)
        ax.annotate(name, pi, textcoords="offset points", xytext=(-10, -12), fontsize=8)
    ax.set_aspect("equal")
    ax.margins(0.15)
    ax.grid(alpha=0.3)
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")


def drawing_png(mechanism, q, body_names, joint_names, title="") -> bytes:
    """PNG bytes of ``draw`` (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.5))
    draw(ax, mechanism, q, body_names, joint_names)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    plt.close(fig)
    return buffer.getvalue()
