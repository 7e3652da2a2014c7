"""GPU-machine diagnostics run by scripts/gpu_check.sh: NVRTC compiles (PTX, cubin) with and without
PyTorch imported first, tvm.build of a bound vector add, an -arch older than NVRTC supports, and which
NVRTC/LLVM libraries the process has loaded; each case in its own subprocess, so a crash is reported
with its Python stack (faulthandler) instead of ending the run. A gdb backtrace when gdb exists."""
import os, subprocess, sys
CASES = {
 "plain_ptx": "from tessera.contrib import nvcc; print(nvcc.nvrtc_info()); print(len(nvcc.compile_cuda(SRC, 'ptx', 'sm_90')))",
 "plain_cubin": "from tessera.contrib import nvcc; print(len(nvcc.compile_cuda(SRC, 'cubin', 'sm_90')))",
 "torch_first_cubin": "import torch; from tessera.contrib import nvcc; print(nvcc.nvrtc_info()); print(len(nvcc.compile_cuda(SRC, 'cubin', 'sm_90')))",
 "torch_first_maps": "import torch; import tessera; print([l.split()[-1] for l in open('/proc/self/maps') if any(k in l for k in ('nvrtc','LLVM','llvm','triton','nvJit'))][:20])",
 "tessera_then_torch_cubin": "from tessera.contrib import nvcc; print(len(nvcc.compile_cuda(SRC, 'cubin', 'sm_90'))); import torch; torch.zeros(1).cuda(); print(len(nvcc.compile_cuda(SRC, 'cubin', 'sm_90')))",
 "tvm_build_vecadd_torch": "import torch\nimport tessera as tvm\nfrom tessera import te\nA=te.placeholder((1024,),name='A'); B=te.compute((1024,),lambda i:A[i]+1,name='B')\nsch=tvm.tir.Schedule(te.create_prim_func([A,B])); b=sch.get_block('B'); i,=sch.get_loops(b); o,n=sch.split(i,[None,128]); sch.bind(o,'blockIdx.x'); sch.bind(n,'threadIdx.x')\nm=tvm.build(sch.mod, target='cuda'); print(type(m))",
 "p100_arch": "import tessera as tvm\nfrom tessera.contrib import nvcc\ntry:\n  print(len(nvcc.compile_cuda(SRC, 'ptx', 'sm_60')))\nexcept Exception as e: print('sm_60:', type(e).__name__, str(e)[:300])",
}
SRC = 'extern "C" __global__ void k(float* a){a[threadIdx.x]=1.f;}'
for name, code in CASES.items():
    full = f"SRC = {SRC!r}\n" + code
    r = subprocess.run([sys.executable, "-X", "faulthandler", "-c", full], capture_output=True, text=True, timeout=120)
    print(f"== {name}: rc={r.returncode}\n{r.stdout[-1500:]}\n{r.stderr[-2500:]}", flush=True)
gdb = subprocess.run(["bash", "-c", "command -v gdb"], capture_output=True, text=True).stdout.strip()
print("gdb:", gdb or "absent")
if gdb:
    code = f"SRC = {SRC!r}\nimport torch\nfrom tessera.contrib import nvcc\nprint(len(nvcc.compile_cuda(SRC, 'cubin', 'sm_90')))"
    open("/tmp/crash.py", "w").write(code)
    r = subprocess.run([gdb, "-batch", "-ex", "run", "-ex", "bt 30", "--args", sys.executable, "/tmp/crash.py"],
                       capture_output=True, text=True, timeout=180)
    print(r.stdout[-6000:], r.stderr[-2000:])
