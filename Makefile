# Thin wrapper over CMake carrying the README's commands.
BUILD ?= build
JOBS  ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

.PHONY: all deps configure run accuracy test test-gpu bench clean asan install

all: configure
	cmake --build $(BUILD) -j $(JOBS)

deps:
	@scripts/install-deps.sh

configure: deps
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null

# The main job: train N-HiTS on bundled real data, compare with seasonal naive.
run: all
	@scripts/run-demo.sh $(BUILD)/fcast

# Cross-validated accuracy on bundled data: N-HiTS, N-BEATS, an ensemble,
# a tuned model, quantiles and coverage, next to the baselines (a few minutes).
accuracy: all
	@scripts/accuracy-demo.sh $(BUILD)/fcast

test: all
	@scripts/install-deps.sh --test
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The GPU checks (docs/gpu.md): op parity on CUDA, training parity and
# determinism, the memory plan against the device, quant parity. On a
# machine with an NVIDIA GPU; without one they fail, saying why.
test-gpu: all
	cd $(BUILD) && FCAST_REQUIRE_GPU=1 ctest -L gpu --output-on-failure

# Installs fcast, libfcast.so, fcast.h and fcast.pc under PREFIX (README:
# "Install as a library"): make install PREFIX=$HOME/.local
PREFIX ?= /usr/local
install: all
	cmake --install $(BUILD) --prefix $(PREFIX)

# Sanitizer build (address + undefined) of the whole suite.
asan:
	$(MAKE) test BUILD=build-asan CMAKE_FLAGS="-DCMAKE_BUILD_TYPE=Debug -DFC_SANITIZE=ON"

clean:
	rm -rf $(BUILD) build-asan
