"""Trains the course's MLP (784 -> 128 -> 10, ReLU) on Fashion-MNIST with
PyTorch and caches the weights under $TESSERA_CACHE (default
~/.cache/tessera), keyed by a hash of the training configuration, so that
later runs load them instead of training again.
"""
import hashlib
import json
import os
import time

import numpy as np

from . import data

# Everything that changes the trained weights goes into the cache key.
CONFIG = {
    "model": "mlp-784-128-10-relu",
    "epochs": 5,
    "batch_size": 64,
    "optimizer": "adam",
    "lr": 1e-3,
    "seed": 0,
    # One PyTorch thread: for this small model it trains faster than two on a
    # 2-core machine, and two threads slow down ~30x when the other core is busy.
    "threads": 1,
    "scaling": "x/255",
}


def cache_dir():
    return os.environ.get("TESSERA_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "tessera"))


def cache_path(config=CONFIG):
    key = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:16]
    return os.path.join(cache_dir(), f"fashion_mnist_mlp-{key}.npz")


def make_torch_model(torch):
    nn = torch.nn
    return nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))


def torch_model_from_params(torch, params):
    """A PyTorch model (eval mode) holding the given numpy weights."""
    model = make_torch_model(torch)
    with torch.no_grad():
        model[0].weight.copy_(torch.from_numpy(params["w0"]))
        model[0].bias.copy_(torch.from_numpy(params["b0"]))
        model[2].weight.copy_(torch.from_numpy(params["w1"]))
        model[2].bias.copy_(torch.from_numpy(params["b1"]))
    return model.eval()


def _train(config, log):
    import torch
    from tqdm import tqdm

    torch.manual_seed(config["seed"])
    torch.set_num_threads(config["threads"])
    log("loading the 60,000 training images ...")
    x_train, y_train = data.load("train")
    x_train, y_train = torch.from_numpy(x_train), torch.from_numpy(y_train)
    model = make_torch_model(torch)
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"])
    loss_fn = torch.nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(config["seed"])
    bs = config["batch_size"]
    steps = (len(x_train) + bs - 1) // bs
    for epoch in range(config["epochs"]):
        order = torch.randperm(len(x_train), generator=gen)
        bar = tqdm(range(steps), desc=f"epoch {epoch + 1}/{config['epochs']}", unit="batch",
                   leave=True, dynamic_ncols=True, mininterval=0.25)
        total, correct, loss_sum = 0, 0, 0.0
        for step in bar:
            idx = order[step * bs:(step + 1) * bs]
            xb, yb = x_train[idx], y_train[idx]
            logits = model(xb)
            loss = loss_fn(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            loss_sum += loss.item() * len(idx)
            correct += int((logits.argmax(1) == yb).sum())
            total += len(idx)
            if step % 50 == 0 or step == steps - 1:
                bar.set_postfix(loss=f"{loss_sum / total:.3f}", train_acc=f"{correct / total:.3f}")
        bar.close()
    with torch.no_grad():
        return {
            "w0": model[0].weight.numpy().copy(), "b0": model[0].bias.numpy().copy(),
            "w1": model[2].weight.numpy().copy(), "b1": model[2].bias.numpy().copy(),
        }


def trained_params(log=print, config=CONFIG):
    """The trained weights as float32 numpy arrays {w0 (128, 784), b0, w1 (10, 128), b1};
    trains once (a progress bar per epoch) and then loads them from the cache."""
    path = cache_path(config)
    if os.path.exists(path):
        with np.load(path) as f:
            params = {k: f[k] for k in ("w0", "b0", "w1", "b1")}
        log(f"trained weights loaded from the cache {path}")
        return params
    log(f"training the MLP with PyTorch ({config['epochs']} epochs, batch {config['batch_size']}, "
        f"Adam lr={config['lr']}, {config['threads']} PyTorch thread{'s' if config['threads'] > 1 else ''}); "
        f"cached afterwards in {path}")
    t0 = time.perf_counter()
    params = _train(config, log)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + f".tmp{os.getpid()}.npz"
    np.savez(tmp, **params, config=json.dumps(config, sort_keys=True))
    os.replace(tmp, path)
    log(f"trained in {time.perf_counter() - t0:.1f} s")
    return params
