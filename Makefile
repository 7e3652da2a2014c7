# Tessera's entry points. `make demo` and `make test` each set up what they
# need on a fresh machine (Debian + Python packages, build), then run.
PYTHON ?= python3
BUILD ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
SHARED ?= $(CURDIR)/../shared
export PYTHONPATH := $(CURDIR)/python$(if $(PYTHONPATH),:$(PYTHONPATH))

# Conformance chapters (../shared/conformance) whose features are delivered.
# One pytest run per entry, each with its own selection (-m / -k), so one
# file's exclusions never narrow another's: CONFORMANCE_<entry> holds the file
# and its pytest arguments. An issue that delivers a chapter adds an entry
# here and to CONFORMANCE_TESTS. `make test-conformance-<entry>` runs one.
CONFORMANCE_TESTS := ch2 ch3 ch4 ch5 ch6 ch7 seed004 seed004api
CONFORMANCE_ch2 := test_ch2_tensorir.py
# All of chapter 3; its optional real-data test reads FASHION_MNIST_DIR (below).
CONFORMANCE_ch3 := test_ch3_end_to_end.py
# All of chapter 4, its (slow-marked, ~10 s) meta_schedule tuning runs included.
CONFORMANCE_ch4 := test_ch4_autotune.py
# All of chapter 5: tensor expressions, BlockBuilder, the course's own fx translator and the
# PyTorch importers (tvm.relax.frontend.torch), each model checked against PyTorch.
CONFORMANCE_ch5 := test_ch5_frameworks.py
# All of chapter 6; its CUDA tests (the tuning one included) skip without a GPU.
CONFORMANCE_ch6 := test_ch6_gpu_tensorize.py
# All of seed 004's Relay notes (ONNX import included) and its Relay-style API
# (relay.frontend.from_onnx, relay.build, the graph executor, relay.testing, relay_viz).
CONFORMANCE_seed004 := test_seed004_relay_concepts.py
CONFORMANCE_seed004api := test_seed004_relay_api.py
# All of chapter 7: the Relax AST walk, PyExprMutator rewrites, remove_all_unused, FuseOps/FuseTIR
# and the high-level model through relax.build.
CONFORMANCE_ch7 := test_ch7_graph_opt.py
# Debian's dataset-fashion-mnist (scripts/setup.sh installs it).
FASHION_MNIST_DIR ?= /usr/share/datasets/fashion-mnist
CONFORMANCE_PYTEST = cd $(SHARED)/conformance && PYTHONPATH=$(CURDIR)/tests/python:$$PYTHONPATH \
	FASHION_MNIST_DIR=$(FASHION_MNIST_DIR) \
	$(PYTHON) -m pytest -q -p fixed_point_plugin

.PHONY: all setup build test test-cpp test-python test-conformance test-asan test-asan-python fuzz demo bench clean

all: build

setup:
	@bash scripts/setup.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DPython_EXECUTABLE=$$(command -v $(PYTHON))

build: setup $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

test: build
	$(MAKE) --no-print-directory test-cpp test-python test-conformance

test-cpp:
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-python:
	$(PYTHON) -m pytest tests/python -q --durations=15

test-conformance:
ifneq ($(strip $(CONFORMANCE_TESTS)),)
	@failed=""; $(foreach t,$(CONFORMANCE_TESTS),\
	  echo '[conformance] $(t): pytest $(CONFORMANCE_$(t))'; \
	  ( $(CONFORMANCE_PYTEST) $(CONFORMANCE_$(t)) ) || failed="$$failed $(t)";) \
	if [ -n "$$failed" ]; then echo "[conformance] FAILED:$$failed"; exit 1; fi
else
	@echo "conformance: no chapter delivered yet"
endif

test-conformance-%:
	@test -n '$(CONFORMANCE_$*)' || { echo "no conformance entry '$*' (CONFORMANCE_$* is empty)"; exit 2; }
	$(CONFORMANCE_PYTEST) $(CONFORMANCE_$*)

# C++ tests under AddressSanitizer + UndefinedBehaviorSanitizer.
test-asan: export LSAN_OPTIONS = suppressions=$(CURDIR)/tests/asan/lsan.supp
test-asan: export ASAN_OPTIONS = detect_leaks=1
test-asan: setup
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTESSERA_SANITIZE=ON -DTESSERA_BUILD_PYTHON=OFF -DTESSERA_OUT_DIR=$(CURDIR)/build-asan/lib
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ctest --output-on-failure -j $(JOBS)

# The Python tests under AddressSanitizer + UBSan: an instrumented build of the
# extension and libraries (build-asan-py/lib, loaded through TESSERA_LIBRARY_PATH)
# with the sanitizer runtimes preloaded into an uninstrumented Python. Leak
# detection is off (CPython itself does not free everything at exit);
# PYTHONMALLOC=malloc lets ASan see Python's allocations. ASAN_PYTEST_ARGS
# narrows the run (default: tests/python without reliability/, whose subprocesses
# run under an address-space cap that ASan's shadow memory cannot fit in).
ASAN_PYTEST_ARGS ?= tests/python --ignore=tests/python/reliability
test-asan-python: setup
	cmake -S . -B build-asan-py -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESSERA_SANITIZE=ON -DTESSERA_BUILD_PYTHON=ON \
	  -DTESSERA_BUILD_TESTS=OFF -DTESSERA_OUT_DIR=$(CURDIR)/build-asan-py/lib -DPython_EXECUTABLE=$$(command -v $(PYTHON))
	cmake --build build-asan-py -j $(JOBS)
	TESSERA_LIBRARY_PATH=$(CURDIR)/build-asan-py/lib PYTHONMALLOC=malloc \
	  ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  LD_PRELOAD="$$($(CXX) -print-file-name=libasan.so) $$($(CXX) -print-file-name=libubsan.so)" \
	  $(PYTHON) -m pytest -q -p no:cacheprovider $(ASAN_PYTEST_ARGS)

# Coverage-guided fuzzing (atheris) of the parser, the print/parse round trip,
# schedule primitives, load_module, the Relax parser and relax.build of random
# graphs (against NumPy), one target after another, FUZZ_SECONDS each. Findings go to tests/fuzz/corpus/<target>/ (see tests/fuzz/README.md).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= parser roundtrip schedule load_module relax_parser relax_build
fuzz: build
	@for t in $(FUZZ_TARGETS); do \
	  echo "[fuzz] $$t for $(FUZZ_SECONDS) s"; \
	  FUZZ_SECONDS=$(FUZZ_SECONDS) $(PYTHON) tests/fuzz/fuzz_$$t.py || exit 1; \
	done

demo: build
	$(PYTHON) apps/demo.py

bench: build
	$(PYTHON) benchmarks/run.py

clean:
	rm -rf $(BUILD) build-asan python/tessera/*.so
