"""Writes a PNG grid of test images, each captioned with the predicted class
and, when the prediction is wrong, the true one (green = right, red = wrong).
"""
import numpy as np


def save_prediction_grid(path, images, predicted, truth, class_names, cols=8, scale=3, title=None):
    """images: uint8-convertible [N, 784] in [0, 1]; predicted/truth: [N] class indices."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default()
    n = len(images)
    rows = (n + cols - 1) // cols
    side = 28 * scale
    cell_w, cell_h = max(side, 112) + 8, side + 34
    top = 24 if title else 4
    canvas = Image.new("RGB", (cols * cell_w + 4, rows * cell_h + top), "white")
    draw = ImageDraw.Draw(canvas)
    if title:
        draw.text((6, 5), title, fill=(0, 0, 0), font=font)
    for idx in range(n):
        r, c = divmod(idx, cols)
        x0, y0 = 4 + c * cell_w, top + r * cell_h
        pixels = (np.clip(images[idx].reshape(28, 28), 0, 1) * 255).astype(np.uint8)
        tile = Image.fromarray(255 - pixels, mode="L").resize((side, side), Image.NEAREST)
        canvas.paste(tile, (x0 + (cell_w - 8 - side) // 2, y0))
        ok = int(predicted[idx]) == int(truth[idx])
        color = (0, 130, 0) if ok else (200, 0, 0)
        draw.text((x0, y0 + side + 2), class_names[int(predicted[idx])], fill=color, font=font)
        caption = "correct" if ok else "true: " + class_names[int(truth[idx])]
        draw.text((x0, y0 + side + 16), caption, fill=(90, 90, 90) if ok else color, font=font)
    canvas.save(path)
    return path
