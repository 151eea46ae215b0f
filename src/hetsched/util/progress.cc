#include "hetsched/util/progress.h"

#include <unistd.h>

#include <cmath>

#include <fmt/format.h>

namespace hetsched {
namespace {

constexpr double kRedrawS = 0.1;
constexpr int kBarWidth = 30;

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string Thousands(long long v) {
  std::string digits = std::to_string(v < 0 ? -v : v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

}  // namespace

std::string FormatDuration(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "?";
  const long long s = std::llround(seconds);
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} m {:02} s", s / 60, s % 60);
  if (s < 86400) return fmt::format("{} h {:02} m", s / 3600, (s % 3600) / 60);
  return fmt::format("{} d {:02} h", s / 86400, (s % 86400) / 3600);
}

bool StderrIsTerminal() { return ::isatty(::fileno(stderr)) != 0; }

ProgressLine::ProgressLine(std::string label, std::string unit, std::FILE* out, Clock clock)
    : label_(std::move(label)), unit_(std::move(unit)), out_(out), clock_(clock ? std::move(clock) : SteadySeconds) {
  start_s_ = clock_();
}

void ProgressLine::Update(long long done, long long total) {
  const std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return;
  const double now = clock_();
  const bool end = total > 0 && done >= total;
  if (!end && last_draw_s_ >= 0 && now - last_draw_s_ < kRedrawS) return;
  Draw(done, total, now);
  last_draw_s_ = now;
  if (end) {
    std::fputc('\n', out_);
    finished_ = true;
  }
  std::fflush(out_);
}

void ProgressLine::Draw(long long done, long long total, double now) {
  const double frac = total > 0 ? std::min(1.0, static_cast<double>(done) / static_cast<double>(total)) : 0.0;
  const int fill = static_cast<int>(frac * kBarWidth);
  const double elapsed = now - start_s_;
  std::string tail;
  if (total > 0 && done >= total) {
    tail = "done in " + FormatDuration(elapsed);
  } else if (done > 0 && (frac >= 0.01 || elapsed >= 1)) {
    tail = FormatDuration(elapsed * static_cast<double>(total - done) / static_cast<double>(done)) + " left";
  }
  // \r and a clear to the end of the line: a shorter line leaves nothing of the last one.
  // An empty unit shows the fraction only (an experiment's parts are not countable units).
  const std::string count = unit_.empty() ? "" : Thousands(done) + "/" + Thousands(total) + " " + unit_ + "  ";
  fmt::print(out_, "\r{:<26} [{}{}] {:5.1f}%  {}{}\033[K", label_, std::string(static_cast<size_t>(fill), '#'),
             std::string(static_cast<size_t>(kBarWidth - fill), '.'), 100.0 * frac, count, tail);
}

}  // namespace hetsched
