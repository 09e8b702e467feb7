//===- HostCuda.cpp - Blocks of CUDA threads as host fibers ---------------===//
//
// Runs kernels built against include/cuda_runtime.h. A launch runs its
// blocks in turn; a block's threads are fibers of the calling thread, each
// started once with makecontext/setcontext and then switched with
// _setjmp/_longjmp, which, unlike swapcontext, make no system call (a
// softmax's rows cross millions of barriers). A fiber runs until it reaches
// __syncthreads or ends its block; when every fiber is at the barrier they
// all go on. A barrier that some threads reach while the others have ended
// fails the launch rather than hanging it.
//
//===----------------------------------------------------------------------===//

// _longjmp switches between fibers' stacks, which glibc's fortified
// longjmp would take for a jump into a dead frame.
#undef _FORTIFY_SOURCE

#include "HostCuda.h"

#include "include/cuda_runtime.h"

#include <setjmp.h>
#include <ucontext.h>

#include <algorithm>
#include <cstdio>
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

enum class State { Ready, AtBarrier, Done };

/// jmp_buf is an array: a vector holds it wrapped.
struct Jump {
  jmp_buf at;
};

class BlockRunner {
public:
  const char *launch(unsigned grid, unsigned threads, void (*body)(void *),
                     void *context) {
    if (threads == 0 || threads > kMaxThreads) {
      error_ = "a block of " + std::to_string(threads) + " threads";
      return error_.c_str();
    }
    if (fibers_.size() < threads) {
      fibers_.resize(threads);
      jumps_.resize(threads);
      state_.resize(threads);
      started_.resize(threads, false);
      shuffle_[0].resize(threads);
      shuffle_[1].resize(threads);
      shuffleParity_.resize(threads);
      while (stacks_.size() < threads)
        stacks_.emplace_back(kStackBytes);
    }
    body_ = body;
    context_ = context;
    std::fill(shuffleParity_.begin(), shuffleParity_.end(), 0);
    threads_ = threads;
    blockDim = {threads, 1, 1};
    gridDim = {grid, 1, 1};
    for (unsigned b = 0; b < grid; ++b) {
      blockIdx = {b, 0, 0};
      std::fill(state_.begin(), state_.begin() + threads, State::Ready);
      for (;;) {
        for (unsigned t = 0; t < threads; ++t)
          if (state_[t] == State::Ready)
            resume(t);
        size_t done =
            std::count(state_.begin(), state_.begin() + threads, State::Done);
        if (done == threads)
          break;
        if (done > 0) {
          // The waiting fibers are abandoned where they stand; the next
          // launch starts every fiber afresh.
          std::fill(started_.begin(), started_.end(), false);
          error_ = "block " + std::to_string(b) + ": " +
                   std::to_string(threads - done) +
                   " threads wait at a __syncthreads that the other " +
                   std::to_string(done) + " never reach";
          return error_.c_str();
        }
        std::fill(state_.begin(), state_.begin() + threads, State::Ready);
      }
    }
    return nullptr;
  }

  void barrier() {
    state_[running_] = State::AtBarrier;
    if (!_setjmp(jumps_[running_].at))
      _longjmp(main_, 1);
  }

  /// Each thread's `x` goes to thread `self ^ laneMask`. Consecutive
  /// shuffles alternate between two buffers, so one barrier each suffices:
  /// a buffer is written again only after the next shuffle's barrier, which
  /// every reader of its last values has passed.
  float shuffleXor(float x, int laneMask) {
    unsigned self = running_;
    std::vector<float> &slots = shuffle_[shuffleParity_[self]];
    shuffleParity_[self] ^= 1;
    slots[self] = x;
    barrier();
    return slots[(self ^ unsigned(laneMask)) % threads_];
  }

private:
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
    fiber.uc_stack.ss_sp = stacks_[t].data();
    fiber.uc_stack.ss_size = stacks_[t].size();
    fiber.uc_link = nullptr; // entry never returns
    makecontext(&fiber, reinterpret_cast<void (*)()>(&entry), 1, int(t));
    setcontext(&fiber);
  }

  /// A fiber runs the body once per block, resumed for the next block
  /// where it reported the last one done.
  static void entry(int t);

  std::vector<ucontext_t> fibers_;
  std::vector<Jump> jumps_;
  std::vector<std::vector<char>> stacks_;
  std::vector<State> state_;
  std::vector<bool> started_;
  std::vector<float> shuffle_[2];
  std::vector<unsigned char> shuffleParity_;
  jmp_buf main_;
  unsigned running_ = 0, threads_ = 1;
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

} // namespace

const char *runBlocks(unsigned grid, unsigned threads, void (*body)(void *),
                      void *context) {
  const char *error = runner().launch(grid, threads, body, context);
  if (error) {
    std::fprintf(stderr, "host CUDA launch failed: %s\n", error);
    lastError = cudaErrorLaunchFailure;
  }
  return error;
}

cudaError_t takeLastError() {
  cudaError_t e = lastError;
  lastError = cudaSuccess;
  return e;
}

} // namespace shardrt_hostcuda

extern "C" void shardcHostSyncThreads() {
  shardrt_hostcuda::runner().barrier();
}

extern "C" float shardcHostShuffleXor(float x, int laneMask) {
  return shardrt_hostcuda::runner().shuffleXor(x, laneMask);
}
