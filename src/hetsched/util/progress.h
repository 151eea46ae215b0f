// Progress of long work on a terminal (issue 23): one line redrawn in place,
//   "simulate fifo+pack        [############..................]  41.3%  4,130/10,000 jobs  12 s left"
// at most every 100 ms and once at the end. The caller decides whether to show it at all
// (ProgressWanted: stderr is a terminal and not --quiet); piped output gets nothing.
#pragma once

#include <chrono>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>

namespace hetsched {

// "12 s", "3 m 07 s", "1 h 02 m", "2 d 03 h"; "?" for a negative or non-finite time.
std::string FormatDuration(double seconds);

// Whether stderr is a terminal (and so whether a progress line is wanted there).
bool StderrIsTerminal();

class ProgressLine {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic; injectable for tests
  ProgressLine(std::string label, std::string unit, std::FILE* out = stderr, Clock clock = {});

  // Thread-safe. Redraws if 100 ms passed since the last draw or the work is done; the time left
  // is elapsed x (total - done) / done, shown once 1% or 1 s of the work is behind.
  void Update(long long done, long long total);

 private:
  void Draw(long long done, long long total, double now);

  std::string label_, unit_;
  std::FILE* out_;
  Clock clock_;
  double start_s_ = 0;
  double last_draw_s_ = -1;
  bool finished_ = false;
  std::mutex mu_;
};

}  // namespace hetsched
