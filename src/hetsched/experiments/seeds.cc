#include "hetsched/experiments/seeds.h"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "hetsched/util/file_io.h"
#include "hetsched/util/text.h"

namespace hetsched {

namespace {

constexpr size_t kMaxSeeds = 1000;

Result<unsigned long long> ParseSeed(std::string_view s, std::string_view whole) {
  s = Trim(s);
  unsigned long long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
    return Status::InvalidArgument(fmt::format("seed list '{}': '{}' is not a whole number >= 0", whole, s));
  }
  return v;
}

bool ParseNumber(std::string_view s, double* out) {
  s = Trim(s);
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size() && std::isfinite(*out);
}

// Digits after the decimal point as written; -1 for exponent form (then shown with 6 digits).
int DecimalsOf(std::string_view s) {
  s = Trim(s);
  if (s.find_first_of("eE") != std::string_view::npos) return -1;
  const size_t dot = s.find('.');
  return dot == std::string_view::npos ? 0 : static_cast<int>(s.size() - dot - 1);
}

// The most digits after the point among one row's values of a column (-1: one in exponent form).
int DecimalsOf(const std::vector<std::string>& values) {
  int most = 0;
  for (const std::string& v : values) {
    const int d = DecimalsOf(v);
    if (d < 0) return -1;
    most = std::max(most, d);
  }
  return most;
}

// The text of the value that is least (greatest) as a number: min and max as the tables have them.
std::string Extreme(const std::vector<std::string>& values, bool greatest) {
  size_t at = 0;
  double best = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    double x = 0;
    if (!ParseNumber(values[i], &x)) continue;
    if (i == 0 || (greatest ? x > best : x < best)) {
      best = x;
      at = i;
    }
  }
  return std::string(Trim(values[at]));
}

std::string FormatNumber(double v, int decimals) {
  if (decimals < 0) return fmt::format("{:.6g}", v);
  return fmt::format("{:.{}f}", v, decimals);
}

}  // namespace

Result<std::vector<unsigned long long>> ParseSeedList(std::string_view text) {
  std::vector<unsigned long long> seeds;
  std::set<unsigned long long> seen;
  if (Trim(text).empty()) return Status::InvalidArgument("seed list is empty (e.g. 1-3 or 1,2,5)");
  for (std::string_view part : Split(text, ',')) {
    unsigned long long lo = 0, hi = 0;
    if (const size_t dash = part.find('-'); dash != std::string_view::npos) {
      HETSCHED_ASSIGN_OR_RETURN(lo, ParseSeed(part.substr(0, dash), text));
      HETSCHED_ASSIGN_OR_RETURN(hi, ParseSeed(part.substr(dash + 1), text));
      if (hi < lo) {
        return Status::InvalidArgument(fmt::format("seed list '{}': range '{}' runs backwards", text, Trim(part)));
      }
    } else {
      HETSCHED_ASSIGN_OR_RETURN(lo, ParseSeed(part, text));
      hi = lo;
    }
    if (hi - lo >= kMaxSeeds || seeds.size() + (hi - lo + 1) > kMaxSeeds) {
      return Status::InvalidArgument(fmt::format("seed list '{}': more than {} seeds", text, kMaxSeeds));
    }
    for (unsigned long long s = lo;; ++s) {
      if (!seen.insert(s).second) {
        return Status::InvalidArgument(fmt::format("seed list '{}': seed {} is listed twice", text, s));
      }
      seeds.push_back(s);
      if (s == hi) break;
    }
  }
  return seeds;
}

Result<ExperimentTable> ReadExperimentTable(const std::string& path) {
  HETSCHED_ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  ExperimentTable table;
  LineReader lines(text);
  std::string_view line;
  while (lines.Next(&line)) {
    if (Trim(line).empty()) continue;
    const std::string where = fmt::format("{}:{}", path, lines.line_number());
    auto split = SplitCsvLine(line);
    if (!split.ok()) return split.status().WithContext(where);
    std::vector<std::string> fields = std::move(split).value();
    if (table.header.empty()) {
      table.header = std::move(fields);
      continue;
    }
    if (fields.size() != table.header.size()) {
      return Status::InvalidArgument(fmt::format("{}: {} field(s), the header has {}", where, fields.size(),
                                                 table.header.size()));
    }
    table.rows.push_back(std::move(fields));
  }
  if (table.header.empty()) return Status::InvalidArgument(path + ": no header row");
  return table;
}

Result<SeedSummary> SummariseSeeds(const std::vector<unsigned long long>& seeds,
                                   const std::vector<ExperimentTable>& tables) {
  if (seeds.empty() || seeds.size() != tables.size()) {
    return Status::InvalidArgument("SummariseSeeds: one table per seed is needed");
  }
  const ExperimentTable& first = tables.front();
  for (size_t i = 1; i < tables.size(); ++i) {
    if (tables[i].header != first.header) {
      return Status::InvalidArgument(
          fmt::format("seed {}'s table has other columns than seed {}'s", seeds[i], seeds.front()));
    }
    if (tables[i].rows.size() != first.rows.size()) {
      return Status::InvalidArgument(fmt::format("seed {}'s table has {} row(s), seed {}'s has {}", seeds[i],
                                                 tables[i].rows.size(), seeds.front(), first.rows.size()));
    }
  }
  SeedSummary out;
  out.seeds = seeds;
  out.columns.resize(first.header.size());
  for (size_t c = 0; c < first.header.size(); ++c) {
    out.columns[c].name = first.header[c];
    out.columns[c].numeric = true;
  }
  out.values.assign(first.rows.size(), std::vector<std::vector<std::string>>(first.header.size()));
  for (size_t r = 0; r < first.rows.size(); ++r) {
    for (size_t c = 0; c < first.header.size(); ++c) {
      SeedColumn& column = out.columns[c];
      std::vector<std::string>& cell = out.values[r][c];
      for (const ExperimentTable& t : tables) {
        const std::string& v = t.rows[r][c];
        if (!cell.empty() && v != cell.front()) column.varies = true;
        double x = 0;
        if (!ParseNumber(v, &x)) column.numeric = false;
        cell.push_back(v);
      }
    }
  }
  return out;
}

SeedStats StatsOf(const std::vector<std::string>& values) {
  SeedStats s;
  std::vector<double> x;
  for (const std::string& v : values) {
    double d = 0;
    if (ParseNumber(v, &d)) x.push_back(d);
  }
  if (x.empty()) return s;
  double sum = 0;
  for (double v : x) sum += v;
  s.mean = sum / static_cast<double>(x.size());
  double squares = 0;
  for (double v : x) squares += (v - s.mean) * (v - s.mean);
  s.sd = x.size() > 1 ? std::sqrt(squares / static_cast<double>(x.size() - 1)) : 0.0;
  s.min = *std::min_element(x.begin(), x.end());
  s.max = *std::max_element(x.begin(), x.end());
  return s;
}

std::string FormatSeedSummaryCsv(const SeedSummary& summary) {
  std::vector<std::string> header;
  for (const SeedColumn& column : summary.columns) {
    if (!column.varies) {
      header.push_back(column.name);
      continue;
    }
    if (column.numeric) {
      for (const char* stat : {"_mean", "_sd", "_min", "_max"}) header.push_back(column.name + stat);
    }
    for (const unsigned long long seed : summary.seeds) header.push_back(fmt::format("{}_seed{}", column.name, seed));
  }
  std::string csv;
  auto append_row = [&csv](const std::vector<std::string>& fields) {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (i > 0) csv += ',';
      csv += fields[i];
    }
    csv += '\n';
  };
  append_row(header);
  for (const auto& row : summary.values) {
    std::vector<std::string> fields;
    for (size_t c = 0; c < summary.columns.size(); ++c) {
      const SeedColumn& column = summary.columns[c];
      if (!column.varies) {
        fields.push_back(row[c].front());
        continue;
      }
      if (column.numeric) {
        const SeedStats s = StatsOf(row[c]);
        // One digit more than the values' own for the mean and deviation, which are not on their grid.
        const int own = DecimalsOf(row[c]);
        const int d = own < 0 ? -1 : own + 1;
        fields.push_back(FormatNumber(s.mean, d));
        fields.push_back(FormatNumber(s.sd, d));
        fields.push_back(Extreme(row[c], false));
        fields.push_back(Extreme(row[c], true));
      }
      for (const std::string& v : row[c]) fields.push_back(v);
    }
    append_row(fields);
  }
  return csv;
}

std::string FormatSeedSummaryText(const SeedSummary& summary) {
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> header;
  for (const SeedColumn& column : summary.columns) header.push_back(column.varies ? column.name + " *" : column.name);
  cells.push_back(header);
  for (const auto& row : summary.values) {
    std::vector<std::string> line;
    for (size_t c = 0; c < summary.columns.size(); ++c) {
      const SeedColumn& column = summary.columns[c];
      if (!column.varies) {
        line.push_back(row[c].front());
      } else if (column.numeric) {
        const SeedStats s = StatsOf(row[c]);
        const int d = DecimalsOf(row[c]);
        const bool same = std::all_of(row[c].begin(), row[c].end(), [&](const std::string& v) { return v == row[c].front(); });
        // A mean of whole numbers keeps one decimal (5.3 of 5, 5, 6, not 5).
        line.push_back(same ? row[c].front()
                            : fmt::format("{} ({}..{})", FormatNumber(s.mean, d == 0 ? 1 : d), Extreme(row[c], false),
                                          Extreme(row[c], true)));
      } else {
        std::string joined;
        for (const std::string& v : row[c]) joined += (joined.empty() ? "" : "/") + v;
        line.push_back(joined);
      }
    }
    cells.push_back(std::move(line));
  }
  std::vector<size_t> width(header.size(), 0);
  for (const auto& line : cells) {
    for (size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  }
  std::string seeds;
  for (const unsigned long long s : summary.seeds) seeds += (seeds.empty() ? "" : ", ") + std::to_string(s);
  std::string text = fmt::format("over seeds {}: * = varies with the seed, shown as mean (least..greatest)\n", seeds);
  for (const auto& line : cells) {
    std::string out;
    for (size_t c = 0; c < line.size(); ++c) {
      // Text columns to the left, numbers to the right, as the experiments print them.
      const bool left = !summary.columns[c].numeric;
      out += c == 0 ? "" : "  ";
      out += left ? fmt::format("{:<{}}", line[c], width[c]) : fmt::format("{:>{}}", line[c], width[c]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    text += out + '\n';
  }
  return text;
}

Status RunExperimentOverSeeds(Experiment& experiment, ExperimentContext& ctx,
                              const std::vector<unsigned long long>& seeds) {
  if (seeds.empty()) return Status::InvalidArgument("no seeds to run");
  const std::string name(experiment.name());
  std::vector<ExperimentTable> tables;
  std::string headlines;
  for (size_t i = 0; i < seeds.size(); ++i) {
    ExperimentContext run = ctx;
    run.seed = seeds[i];
    run.out_dir = fmt::format("{}/seed-{}", ctx.out_dir, seeds[i]);
    run.progress = PartProgress(ctx, static_cast<int>(i), static_cast<int>(seeds.size()));
    run.headline.clear();
    if (ctx.print) ctx.print(fmt::format("== seed {} ({} of {}): {}/\n", seeds[i], i + 1, seeds.size(), run.out_dir));
    HETSCHED_RETURN_IF_ERROR(MakeDirs(run.out_dir));
    HETSCHED_RETURN_IF_ERROR(experiment.Run(run).WithContext(fmt::format("seed {}", seeds[i])));
    if (!run.headline.empty()) headlines += fmt::format("{}seed {}: {}", headlines.empty() ? "" : "\n", seeds[i], run.headline);
    HETSCHED_ASSIGN_OR_RETURN(ExperimentTable table, ReadExperimentTable(run.out_dir + "/" + name + ".csv"));
    tables.push_back(std::move(table));
  }
  HETSCHED_ASSIGN_OR_RETURN(const SeedSummary summary, SummariseSeeds(seeds, tables));
  const std::string text = FormatSeedSummaryText(summary);
  if (ctx.print) ctx.print("\n" + text);
  HETSCHED_RETURN_IF_ERROR(WriteExperimentOutputs(
      ctx, {{name + "_seeds.csv", FormatSeedSummaryCsv(summary)}, {name + "_seeds.txt", text}}, {"seed-<N>/"}));
  ctx.headline = headlines;
  return Status::Ok();
}

}  // namespace hetsched
