// SPDX-License-Identifier: Apache-2.0
// parallelCopy: a process-wide pool of copy threads, started on first use.
#include "common/parallel_copy.h"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace openvgf {
namespace {

class CopyPool {
 public:
  explicit CopyPool(unsigned workers) {
    for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([this](std::stop_token stop) { work(stop); });
  }
  ~CopyPool() {
    for (std::jthread& t : threads_) t.request_stop();
    ready_.notify_all();
  }
  unsigned workers() const { return static_cast<unsigned>(threads_.size()); }

  void post(std::function<void()> task) {
    {
      std::lock_guard lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    ready_.notify_one();
  }

 private:
  void work(std::stop_token stop) {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return stop.stop_requested() || !tasks_.empty(); });
        if (tasks_.empty()) return;  // stop requested and nothing left
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;
  std::vector<std::jthread> threads_;  // last: stopped and joined first
};

unsigned defaultThreads() {
  static const unsigned threads =
      copyThreads(std::getenv("OPENVGF_COPY_THREADS"), std::thread::hardware_concurrency());
  return threads;
}

CopyPool& pool() {
  static CopyPool instance(defaultThreads() - 1);
  return instance;
}

}  // namespace

unsigned copyThreads(const char* setting, unsigned hardwareThreads) {
  if (setting != nullptr && setting[0] != '\0') {
    char* end = nullptr;
    const unsigned long value = std::strtoul(setting, &end, 10);
    const bool digits = setting[0] >= '0' && setting[0] <= '9' && *end == '\0';
    if (digits && value >= 1 && value <= 64) return static_cast<unsigned>(value);
  }
  return std::clamp(hardwareThreads, 1u, 8u);
}

void parallelCopy(void* destination, const void* source, std::size_t bytes, unsigned threads) {
  if (threads == 0) threads = defaultThreads();
  // Each part at least 1 MiB: smaller parts cost more in hand-offs than they gain.
  constexpr std::size_t kMinPart = std::size_t{1} << 20;
  std::size_t parts = std::min<std::size_t>(threads, bytes / kMinPart);
  if (bytes < kParallelCopyMinBytes || parts <= 1) {
    std::memcpy(destination, source, bytes);
    return;
  }
  CopyPool& workers = pool();
  parts = std::min<std::size_t>(parts, workers.workers() + 1);
  // Parts end on 4 KiB boundaries so no two threads write one page.
  std::size_t part = ((bytes / parts) + 4095) & ~std::size_t{4095};
  auto* to = static_cast<std::uint8_t*>(destination);
  const auto* from = static_cast<const std::uint8_t*>(source);
  std::mutex mutex;
  std::condition_variable done;
  std::size_t pending = 0;
  for (std::size_t offset = part; offset < bytes; offset += part) {
    std::size_t length = std::min(part, bytes - offset);
    {
      std::lock_guard lock(mutex);
      ++pending;
    }
    workers.post([&, offset, length] {
      std::memcpy(to + offset, from + offset, length);
      std::lock_guard lock(mutex);
      if (--pending == 0) done.notify_one();
    });
  }
  std::memcpy(to, from, std::min(part, bytes));
  std::unique_lock lock(mutex);
  done.wait(lock, [&] { return pending == 0; });
}

void pipelinedCopy(std::span<const CopyPiece> pieces, const std::function<void(std::size_t)>& copied) {
  CopyPool& workers = pool();
  if (workers.workers() == 0) {
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      if (pieces[k].bytes > 0) std::memcpy(pieces[k].destination, pieces[k].source, pieces[k].bytes);
      copied(k);
    }
    return;
  }
  // Each piece in up to one part per worker of at least 256 KiB (4 KiB multiples, so no two
  // threads write one page); the FIFO pool takes a piece's parts before the next piece's.
  constexpr std::size_t kMinPart = std::size_t{256} << 10;
  std::mutex mutex;
  std::condition_variable progress;
  std::vector<std::size_t> pending(pieces.size(), 0);  // parts of each piece not yet copied
  std::vector<std::size_t> partBytes(pieces.size(), 0);
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const std::size_t bytes = pieces[k].bytes;
    const std::size_t parts = std::clamp<std::size_t>(bytes / kMinPart, 1, workers.workers());
    partBytes[k] = ((bytes / parts) + 4095) & ~std::size_t{4095};
    if (bytes > 0) pending[k] = (bytes + partBytes[k] - 1) / partBytes[k];
  }
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    auto* to = static_cast<std::uint8_t*>(pieces[k].destination);
    const auto* from = static_cast<const std::uint8_t*>(pieces[k].source);
    for (std::size_t offset = 0; offset < pieces[k].bytes; offset += partBytes[k]) {
      const std::size_t length = std::min(partBytes[k], pieces[k].bytes - offset);
      workers.post([&, k, to, from, offset, length] {
        std::memcpy(to + offset, from + offset, length);
        std::lock_guard lock(mutex);
        if (--pending[k] == 0) progress.notify_all();
      });
    }
  }
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    {
      std::unique_lock lock(mutex);
      progress.wait(lock, [&] { return pending[k] == 0; });
    }
    copied(k);
  }
}

}  // namespace openvgf
