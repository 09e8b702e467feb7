//===- HostCuda.cpp - Blocks of CUDA threads as host fibers ---------------===//
//
// Runs kernels built against include/cuda_runtime.h. A launch runs its
// blocks one after another; a block's threads are fibers of the calling
// thread, started with makecontext/setcontext and then switched with
// _setjmp/_longjmp, which, unlike swapcontext, make no system call (a
// softmax's rows cross millions of barriers). A fiber runs until it reaches
// __syncthreads (or a shuffle) or ends its block; when every fiber waits at
// the same kind of barrier they all go on.
//
// The order is varied so that a kernel cannot lean on one: the fibers run
// forwards and backwards in turn between barriers, and every other launch
// on a thread runs its blocks from the last. A barrier that some threads
// reach while the others have ended, or threads that meet at different
// kinds of barrier (a __syncthreads against a shuffle), fail the launch
// rather than hanging it; a failed launch is sticky, as a kernel fault is
// on a device: every later runtime call reports it.
//
//===----------------------------------------------------------------------===//

// _longjmp switches between fibers' stacks, which glibc's fortified
// longjmp would take for a jump into a dead frame.
#undef _FORTIFY_SOURCE

#include "include/cuda_runtime.h"

#include <setjmp.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

extern "C" {
// Exported to the kernels, including those of a library loaded later.
thread_local uint3 threadIdx, blockIdx;
thread_local dim3 blockDim, gridDim;
}

namespace shardrt_hostcuda {
namespace {

constexpr unsigned kMaxThreads = 1024;
constexpr size_t kStackBytes = 64 * 1024;

enum class State { Ready, AtBarrier, AtShuffle, Done };

/// jmp_buf is an array: a vector holds it wrapped.
struct Jump {
  jmp_buf at;
};

/// A fiber's stack, with an inaccessible page below it so that an overflow
/// faults instead of corrupting its neighbour.
class FiberStack {
public:
  FiberStack() {
    page_ = size_t(sysconf(_SC_PAGESIZE));
    void *p = mmap(nullptr, kStackBytes + page_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      return;
    base_ = static_cast<char *>(p);
    mprotect(base_, page_, PROT_NONE);
  }
  ~FiberStack() {
    if (base_)
      munmap(base_, kStackBytes + page_);
  }
  FiberStack(const FiberStack &) = delete;
  FiberStack &operator=(const FiberStack &) = delete;
  char *top() const { return base_ ? base_ + page_ : nullptr; }

private:
  char *base_ = nullptr;
  size_t page_ = 0;
};

class BlockRunner {
public:
  const char *launch(unsigned grid, unsigned threads, void (*body)(void *),
                     void *context) {
    if (threads == 0 || threads > kMaxThreads || grid == 0)
      return fail("a launch of " + std::to_string(grid) + " blocks of " +
                  std::to_string(threads) + " threads");
    if (!grow(threads))
      return fail("no memory for the fibers' stacks");
    body_ = body;
    context_ = context;
    std::fill(shuffleParity_.begin(), shuffleParity_.end(), 0);
    threads_ = threads;
    blockDim = {threads, 1, 1};
    gridDim = {grid, 1, 1};
    bool backwards = (launches_++ % 2) == 1;
    for (unsigned i = 0; i < grid; ++i) {
      unsigned b = backwards ? grid - 1 - i : i;
      blockIdx = {b, 0, 0};
      std::fill(state_.begin(), state_.begin() + threads, State::Ready);
      for (unsigned round = 0;; ++round) {
        for (unsigned k = 0; k < threads; ++k) {
          unsigned t = round % 2 ? threads - 1 - k : k;
          if (state_[t] == State::Ready)
            resume(t);
        }
        auto begin = state_.begin(), end = state_.begin() + threads;
        size_t done = size_t(std::count(begin, end, State::Done));
        size_t shuffles = size_t(std::count(begin, end, State::AtShuffle));
        if (done == threads)
          break;
        if (done > 0)
          return abandon("block " + std::to_string(b) + ": " +
                         std::to_string(threads - done) +
                         " threads wait at a __syncthreads that the other " +
                         std::to_string(done) + " never reach");
        if (shuffles > 0 && shuffles < threads)
          return abandon(
              "block " + std::to_string(b) + ": " + std::to_string(shuffles) +
              " threads wait at a shuffle, the other " +
              std::to_string(threads - shuffles) + " at a __syncthreads");
        std::fill(begin, end, State::Ready);
      }
    }
    return nullptr;
  }

  void barrier(State kind) {
    state_[running_] = kind;
    if (!_setjmp(jumps_[running_].at))
      _longjmp(main_, 1);
  }

  /// Each thread's `x` goes to thread `self ^ laneMask` of its warp.
  /// Consecutive shuffles alternate between two buffers, so one barrier each
  /// suffices: a buffer is written again only after the next shuffle's
  /// barrier, which every reader of its last values has passed.
  float shuffleXor(float x, int laneMask) {
    unsigned self = running_;
    std::vector<float> &slots = shuffle_[shuffleParity_[self]];
    shuffleParity_[self] ^= 1;
    slots[self] = x;
    barrier(State::AtShuffle);
    unsigned source = (self & ~31u) | ((self ^ unsigned(laneMask)) & 31u);
    // A lane past the block's last reads its own value, as on a device.
    return source < threads_ ? slots[source] : x;
  }

private:
  const char *fail(std::string message) {
    error_ = std::move(message);
    return error_.c_str();
  }

  /// Fails the launch; the fibers waiting at a barrier are abandoned where
  /// they stand, and the next launch starts every fiber afresh.
  const char *abandon(std::string message) {
    std::fill(started_.begin(), started_.end(), false);
    return fail(std::move(message));
  }

  bool grow(unsigned threads) {
    if (fibers_.size() >= threads)
      return true;
    fibers_.resize(threads);
    jumps_.resize(threads);
    state_.resize(threads);
    started_.resize(threads, false);
    shuffle_[0].resize(threads);
    shuffle_[1].resize(threads);
    shuffleParity_.resize(threads);
    while (stacks_.size() < threads) {
      stacks_.push_back(std::make_unique<FiberStack>());
      if (!stacks_.back()->top())
        return false;
    }
    return true;
  }

  /// Runs fiber `t` until it reaches a barrier or ends its block. Its own
  /// frame keeps the scheduler's locals out of reach of the jump back.
  [[gnu::noinline]] void resume(unsigned t) {
    running_ = t;
    threadIdx = {t, 0, 0};
    if (_setjmp(main_))
      return;
    if (started_[t])
      _longjmp(jumps_[t].at, 1);
    started_[t] = true;
    ucontext_t &fiber = fibers_[t];
    getcontext(&fiber);
    fiber.uc_stack.ss_sp = stacks_[t]->top();
    fiber.uc_stack.ss_size = kStackBytes;
    fiber.uc_link = nullptr; // entry never returns
    makecontext(&fiber, reinterpret_cast<void (*)()>(&entry), 1, int(t));
    setcontext(&fiber);
  }

  /// A fiber runs the body once per block, resumed for the next block
  /// where it reported the last one done.
  static void entry(int t);

  std::vector<ucontext_t> fibers_;
  std::vector<Jump> jumps_;
  std::vector<std::unique_ptr<FiberStack>> stacks_;
  std::vector<State> state_;
  std::vector<bool> started_;
  std::vector<float> shuffle_[2];
  std::vector<unsigned char> shuffleParity_;
  jmp_buf main_;
  unsigned running_ = 0, threads_ = 1;
  unsigned long long launches_ = 0;
  void (*body_)(void *) = nullptr;
  void *context_ = nullptr;
  std::string error_;
};

/// Each host thread runs its launches on fibers of its own.
BlockRunner &runner() {
  static thread_local BlockRunner r;
  return r;
}

void BlockRunner::entry(int t) {
  BlockRunner &r = runner();
  for (;;) {
    // threadIdx is set anew each time the fiber is resumed.
    r.body_(r.context_);
    r.state_[unsigned(t)] = State::Done;
    if (!_setjmp(r.jumps_[unsigned(t)].at))
      _longjmp(r.main_, 1);
  }
}

thread_local cudaError_t lastError = cudaSuccess;
/// Set by a failed launch, as a fault poisons a device's context.
std::atomic<bool> faulted{false};

} // namespace

const char *runBlocks(unsigned grid, unsigned threads, void (*body)(void *),
                      void *context) {
  const char *error = runner().launch(grid, threads, body, context);
  if (error) {
    std::fprintf(stderr, "host CUDA launch failed: %s\n", error);
    lastError = cudaErrorLaunchFailure;
    faulted = true;
  }
  return error;
}

cudaError_t takeLastError() {
  if (faulted)
    return cudaErrorLaunchFailure;
  cudaError_t e = lastError;
  lastError = cudaSuccess;
  return e;
}

cudaError_t stickyError() {
  return faulted ? cudaErrorLaunchFailure : cudaSuccess;
}

void resetDevice() {
  faulted = false;
  lastError = cudaSuccess;
}

} // namespace shardrt_hostcuda

extern "C" void shardcHostSyncThreads() {
  shardrt_hostcuda::runner().barrier(shardrt_hostcuda::State::AtBarrier);
}

extern "C" float shardcHostShuffleXor(float x, int laneMask) {
  return shardrt_hostcuda::runner().shuffleXor(x, laneMask);
}
