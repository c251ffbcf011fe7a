// SPDX-License-Identifier: Apache-2.0
// DevicePool (openvgf/openvgf.hpp, "Several devices in one process"), written on the public
// Model / Session / RunHandle alone: one Model and Session per device, one host thread per
// device that keeps up to inFlight runs submitted with Session::runAsync, and the calling
// thread handing results out in input order. Nothing is shared between the devices' threads
// but the feed below (which item comes next, the results not yet handed out), so no device
// waits for another.
#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "api/pool_retry.h"
#include "api/public_state.h"
#include "vulkan/snapshot.h"
#include "openvgf/openvgf.hpp"

namespace openvgf {

//===------------------------------------------------------------------===//
// selectDevices
//===------------------------------------------------------------------===//

namespace {

std::string lowered(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string listing(const std::vector<DeviceInfo>& devices) {
  std::string list;
  for (const DeviceInfo& d : devices) {
    list += fmt::format("\n  {}: {} ({}{})", d.index, d.name, d.type, d.usable ? "" : ", not usable: expected Vulkan 1.3 with a compute queue");
  }
  return list;
}

// Higher for the kinds `all` prefers: vulkan::deviceTypeRank of the kind DeviceInfo::type names.
int kindRank(const std::string& type) {
  using vulkan::DeviceType;
  for (DeviceType kind : {DeviceType::DiscreteGpu, DeviceType::IntegratedGpu, DeviceType::VirtualGpu, DeviceType::Cpu}) {
    if (vulkan::toString(kind) == type) return vulkan::deviceTypeRank(kind);
  }
  return 0;
}

// The devices one entry of a comma-separated selector names.
std::vector<int> selectEntry(const std::string& selector, const std::string& entry,
                             const std::vector<DeviceInfo>& devices) {
  const std::string context = fmt::format("devices '{}': ", selector);
  if (entry.empty()) {
    raiseInvalid(context + "expected a comma-separated list of device indices and name substrings, got an empty entry");
  }
  const bool digits = std::all_of(entry.begin(), entry.end(), [](char c) { return c >= '0' && c <= '9'; });
  std::vector<const DeviceInfo*> named;
  if (digits) {
    for (const DeviceInfo& d : devices) {
      if (entry.size() < 10 && d.index == std::stoi(entry)) named.push_back(&d);
    }
    if (named.empty()) {
      raiseInvalid(fmt::format("{}device {}: expected an index below {}, the devices are:{}", context, entry,
                               devices.size(), listing(devices)));
    }
  } else {
    for (const DeviceInfo& d : devices) {
      if (lowered(d.name).find(lowered(entry)) != std::string::npos) named.push_back(&d);
    }
    if (named.empty()) {
      raiseInvalid(fmt::format("{}'{}': expected an index or a substring of a device name, the devices are:{}",
                               context, entry, listing(devices)));
    }
  }
  std::vector<int> usable;
  for (const DeviceInfo* d : named) {
    if (d->usable) usable.push_back(d->index);
  }
  if (usable.empty()) {
    throw Exception(ErrorCode::Environment,
                    fmt::format("{}'{}': expected a usable device (Vulkan 1.3 with a compute queue), the devices "
                                "are:{}", context, entry, listing(devices)));
  }
  return usable;
}

}  // namespace

std::vector<int> selectDevices(const std::string& selector, const std::vector<DeviceInfo>& devices) {
  const std::string context = fmt::format("devices '{}': ", selector);
  if (devices.empty()) {
    throw Exception(ErrorCode::Environment,
                    context + "no Vulkan device found: expected a Vulkan 1.3 driver; install mesa-vulkan-drivers "
                              "(lavapipe runs on the CPU) or your GPU vendor's driver, and the loader libvulkan1");
  }
  if (selector.empty()) {
    for (const DeviceInfo& d : devices) {
      if (d.isDefault) return {d.index};
    }
    throw Exception(ErrorCode::Environment,
                    context + "expected a usable device (Vulkan 1.3 with a compute queue), the devices are:" +
                        listing(devices));
  }
  if (selector == "all") {
    int best = -1;
    for (const DeviceInfo& d : devices) {
      if (d.usable) best = std::max(best, kindRank(d.type));
    }
    std::vector<int> chosen;
    for (const DeviceInfo& d : devices) {
      if (d.usable && kindRank(d.type) == best) chosen.push_back(d.index);
    }
    if (chosen.empty()) {
      throw Exception(ErrorCode::Environment,
                      context + "expected a usable device (Vulkan 1.3 with a compute queue), the devices are:" +
                          listing(devices));
    }
    return chosen;
  }
  // Entries in order; a device named again gets one more Model, Session and thread.
  std::vector<int> chosen;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = selector.find(',', start);
    const std::string entry = selector.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    for (int index : selectEntry(selector, entry, devices)) chosen.push_back(index);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return chosen;
}

//===------------------------------------------------------------------===//
// DevicePool
//===------------------------------------------------------------------===//

namespace detail {

struct PoolState {
  std::vector<Model> models;
  std::vector<Session> sessions;  // sessions[d] is used by device d's thread alone
  std::vector<int> indices;
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
  unsigned inFlight = 2;
  std::vector<bool> live;  // live[d]: member d takes items (false once its device was lost)
  std::mutex call;  // one run call at a time
};

}  // namespace detail

namespace {

PoolResult failed(const Exception& e, int device) {
  PoolResult result;
  result.code = e.code();
  result.error = e.what();
  result.device = device;
  return result;
}

// One run call: which item comes next, and the results the calling thread has not handed out.
// A run that fails because its member's device was lost goes back to the feed (retry_) for
// another live member, and the member is retired (api::afterFailure decides); when no member
// is live any more, the threads left fail what remains.
class Feed {
 public:
  Feed(const DevicePool::Prepare* prepare, const DevicePool::Next* next, std::optional<std::size_t> total,
       std::size_t window, std::vector<bool>& live)
      : prepare_(prepare), next_(next), total_(total), window_(window), live_(live), hook_(api::poolRunHook()) {}

  // Member `member`'s thread (on device `device`): takes items and keeps up to `inFlight` of them running.
  void work(Session& session, std::size_t member, int device, unsigned inFlight) {
    try {
      workLoop(session, member, device, inFlight);
    } catch (...) {
      stop(std::current_exception());
    }
  }

  // The calling thread: hands out results in index order until all are out or the run stops.
  void consume(const DevicePool::Done& done) {
    for (;;) {
      PoolResult result;
      std::size_t index = 0;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stopped_ || ready_.contains(delivered_) || finished(); });
        if (stopped_ || !ready_.contains(delivered_)) return;
        auto it = ready_.find(delivered_);
        result = std::move(it->second);
        ready_.erase(it);
        index = delivered_;
      }
      done(index, std::move(result));
      {
        std::lock_guard lock(mutex_);
        ++delivered_;
      }
      changed_.notify_all();
    }
  }

  void stop(std::exception_ptr error) {
    {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::move(error);
      stopped_ = true;
    }
    changed_.notify_all();
  }

  const std::exception_ptr& error() const { return error_; }

 private:
  enum class Take { Item, Full, End, Retired, Stop };

  struct Item {
    std::size_t index = 0;
    std::vector<Tensor> inputs;
    std::optional<PoolResult> failure;  // prepare / next threw for it, or no device is left to run it
    std::vector<int> lost;              // devices lost while running it
  };

  struct Flight {
    Item item;
    RunHandle handle;
  };

  bool finished() const { return total_ && delivered_ >= *total_; }

  bool anyLive() const { return std::find(live_.begin(), live_.end(), true) != live_.end(); }

  // An item a retired member takes when no member is live: failed without running.
  void failUnrunnable(Item& item) {
    if (item.failure) return;
    PoolResult result = failed(Exception(ErrorCode::Runtime, fmt::format("not run: every device of the pool was lost "
                                                                         "(the last: {})", lastLost_)), -1);
    result.lostDevices = item.lost;
    item.failure = std::move(result);
  }

  Take take(Item& item, std::size_t member) {
    std::unique_lock<std::mutex> serial;  // runStream: next() one call at a time, in index order
    if (next_ != nullptr) serial = std::unique_lock(nextMutex_);
    {
      std::lock_guard lock(mutex_);
      if (stopped_) return Take::Stop;
      const bool draining = !live_[member] && !anyLive();
      if (!live_[member] && !draining) return Take::Retired;
      if (!retry_.empty()) {
        item = std::move(retry_.front());
        retry_.pop_front();
        if (draining) failUnrunnable(item);
        return Take::Item;
      }
      if (total_ && taken_ >= *total_) return Take::End;
      if (taken_ >= delivered_ + window_) return Take::Full;
      item = Item{};
      item.index = taken_++;
      if (draining) {
        failUnrunnable(item);
        return Take::Item;
      }
    }
    try {
      if (prepare_ != nullptr) {
        (*prepare_)(item.index, item.inputs);
        return Take::Item;
      }
      if ((*next_)(item.index, item.inputs)) return Take::Item;
      std::lock_guard lock(mutex_);
      total_ = item.index;
      taken_ = item.index;
    } catch (const Exception& e) {
      item.failure = failed(e, -1);
      return Take::Item;
    }
    changed_.notify_all();
    return Take::End;
  }

  void deliver(std::size_t index, PoolResult result) {
    {
      std::lock_guard lock(mutex_);
      ready_.emplace(index, std::move(result));
    }
    changed_.notify_all();
  }

  // `item`'s run on `member` failed: its result, or back to the feed for another member.
  void runFailed(Item item, std::size_t member, int device, const Exception& e) {
    PoolResult result = failed(e, device);
    {
      std::lock_guard lock(mutex_);
      const api::AfterFailure after = api::afterFailure(e.code(), e.what(), member, live_);
      if (after != api::AfterFailure::Report) {
        live_[member] = false;
        lastLost_ = e.what();
      }
      if (after == api::AfterFailure::RunElsewhere) {
        item.lost.push_back(device);
        retry_.push_back(std::move(item));
      } else {
        result.lostDevices = std::move(item.lost);
        ready_.emplace(item.index, std::move(result));
      }
    }
    changed_.notify_all();
  }

  void finishOldest(std::deque<Flight>& flying, std::size_t member, int device) {
    Flight flight = std::move(flying.front());
    flying.pop_front();
    PoolResult result;
    try {
      result.outputs = flight.handle.wait();
    } catch (const Exception& e) {
      runFailed(std::move(flight.item), member, device, e);
      return;
    }
    result.ok = true;
    result.device = device;
    result.lostDevices = std::move(flight.item.lost);
    deliver(flight.item.index, std::move(result));
  }

  void submit(Session& session, std::deque<Flight>& flying, Item& item, std::size_t member, int device) {
    try {
      if (hook_) hook_(member, item.index);
      RunHandle handle = session.runAsync(item.inputs);
      flying.push_back({std::move(item), std::move(handle)});
    } catch (const Exception& e) {
      runFailed(std::move(item), member, device, e);
    }
  }

  // Nothing to take now: waits for `done` to catch up, for an item to retry or for the end.
  void idle(Take take) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] {
      return stopped_ || !retry_.empty() || finished() ||
             (take == Take::Full && (taken_ < delivered_ + window_ || (total_ && taken_ >= *total_)));
    });
  }

  void workLoop(Session& session, std::size_t member, int device, unsigned inFlight) {
    std::deque<Flight> flying;  // dropped on a stop: each handle's destructor finishes its run
    Item item;
    for (;;) {
      const Take take = this->take(item, member);
      if (take == Take::Stop) return;
      if (take == Take::Item) {
        if (item.failure) {
          deliver(item.index, std::move(*item.failure));
          continue;
        }
        // Never more than inFlight: the session then never has to finish a run itself.
        if (flying.size() >= inFlight) finishOldest(flying, member, device);
        submit(session, flying, item, member, device);
        continue;
      }
      // Nothing to take now: this device's oldest run first (it may be the one `done` waits
      // for), then wait for `done` to catch up.
      if (!flying.empty()) {
        finishOldest(flying, member, device);
        continue;
      }
      if (take == Take::Retired) return;
      // At the end, a member stays until every result is out: a lost device elsewhere may
      // still hand an item back.
      {
        std::lock_guard lock(mutex_);
        if (take == Take::End && (finished() || stopped_)) return;
      }
      idle(take);
    }
  }

  const DevicePool::Prepare* prepare_;
  const DevicePool::Next* next_;
  std::mutex nextMutex_;  // taken before mutex_, never while waiting
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<std::size_t> total_;  // known from the start (run), or when next() returns false
  const std::size_t window_;          // most items taken and not handed out
  std::size_t taken_ = 0;
  std::size_t delivered_ = 0;
  std::map<std::size_t, PoolResult> ready_;
  std::deque<Item> retry_;    // items whose device was lost, for another member
  std::vector<bool>& live_;   // the pool's: a retired member stays retired for later calls
  std::string lastLost_;      // the last device-lost error, for items no device is left to run
  const api::PoolRunHook hook_;
  bool stopped_ = false;
  std::exception_ptr error_;
};

// Runs `feed` on one thread per device, handing results out on this one.
void execute(detail::PoolState& state, Feed& feed, const DevicePool::Done& done) {
  std::vector<std::thread> threads;
  try {
    for (std::size_t d = 0; d < state.sessions.size(); ++d) {
      threads.emplace_back([&feed, &state, d] { feed.work(state.sessions[d], d, state.indices[d], state.inFlight); });
    }
    feed.consume(done);
  } catch (...) {
    feed.stop(std::current_exception());
  }
  for (std::thread& t : threads) t.join();
  if (feed.error()) std::rethrow_exception(feed.error());
}

}  // namespace

DevicePool DevicePool::open(const std::string& path, const PoolOptions& options) {
  if (!options.model.device.empty()) {
    raiseInvalid(fmt::format("{}: PoolOptions::model.device: expected \"\" (PoolOptions::devices names the "
                             "devices), got '{}'", path, options.model.device));
  }
  if (options.inFlight < 1 || options.inFlight > 8) {
    raiseInvalid(fmt::format("{}: runs in flight per device: expected 1 to 8, got {}", path, options.inFlight));
  }
  auto state = std::make_unique<detail::PoolState>();
  if (unwrap(api::EthosUModel::load(path, options.model.plan))) {
    // An Ethos-U stream runs in the simulator on the CPU: one session, no Vulkan device.
    if (!options.devices.empty()) {
      throw Exception(ErrorCode::Unsupported,
                      fmt::format("{}: devices '{}': expected none: an Ethos-U stream runs in openvgf's simulator "
                                  "on the CPU, not on a Vulkan device", path, options.devices));
    }
    state->indices = {-1};
  } else {
    state->indices = selectDevices(options.devices, listDevices());
  }
  state->inFlight = options.inFlight;
  const std::size_t n = state->indices.size();
  std::vector<std::optional<Model>> models(n);
  std::vector<std::optional<Session>> sessions(n);
  std::vector<std::exception_ptr> errors(n);
  auto openOn = [&](std::size_t d) {
    try {
      ModelOptions model = options.model;
      if (state->indices[d] >= 0) model.device = std::to_string(state->indices[d]);
      models[d] = Model::open(path, model);
      sessions[d] = models[d]->createSession({.profile = false, .inFlight = options.inFlight});
    } catch (...) {
      errors[d] = std::current_exception();
    }
  };
  // The first device alone: a .tosa is converted (and cached) once, the others read the cache.
  openOn(0);
  if (errors[0]) std::rethrow_exception(errors[0]);
  {
    std::vector<std::jthread> opening;
    for (std::size_t d = 1; d < n; ++d) opening.emplace_back(openOn, d);
  }
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  for (std::size_t d = 0; d < n; ++d) {
    state->models.push_back(std::move(*models[d]));
    state->sessions.push_back(std::move(*sessions[d]));
  }
  state->live.assign(n, true);
  state->inputs = state->models[0].inputs();
  state->outputs = state->models[0].outputs();
  return DevicePool(std::move(state));
}

DevicePool::DevicePool(std::unique_ptr<detail::PoolState> state) : state_(std::move(state)) {}
DevicePool::DevicePool(DevicePool&&) noexcept = default;
DevicePool& DevicePool::operator=(DevicePool&&) noexcept = default;
DevicePool::~DevicePool() = default;

const std::vector<Model>& DevicePool::models() const { return state_->models; }
const std::vector<int>& DevicePool::deviceIndices() const { return state_->indices; }
const std::vector<TensorInfo>& DevicePool::inputs() const { return state_->inputs; }
const std::vector<TensorInfo>& DevicePool::outputs() const { return state_->outputs; }

void DevicePool::run(std::size_t count, const Prepare& prepare, const Done& done) {
  std::lock_guard call(state_->call);
  Feed feed(&prepare, nullptr, count, 2 * std::size_t{state_->inFlight} * state_->sessions.size(), state_->live);
  execute(*state_, feed, done);
}

void DevicePool::runStream(const Next& next, const Done& done) {
  std::lock_guard call(state_->call);
  Feed feed(nullptr, &next, std::nullopt, 2 * std::size_t{state_->inFlight} * state_->sessions.size(),
            state_->live);
  execute(*state_, feed, done);
}

std::vector<PoolResult> DevicePool::runMany(const std::vector<std::vector<Tensor>>& inputs) {
  std::vector<PoolResult> results(inputs.size());
  run(
      inputs.size(), [&inputs](std::size_t index, std::vector<Tensor>& in) { in = inputs[index]; },
      [&results](std::size_t index, PoolResult result) { results[index] = std::move(result); });
  return results;
}

}  // namespace openvgf
