// One experiment over several seeds: `hetsched experiment NAME --seeds 1-3` runs the experiment
// once per seed (each into <out>/seed-<N>/) and summarises the per-seed tables, row by row, in
// <out>/<NAME>_seeds.csv and <NAME>_seeds.txt. A column whose text is the same on every seed in
// every row (a workload, a method, a case's parameters, a count that the seed does not move) is
// shown once; a column that varies is shown as its mean and its spread (sample standard deviation,
// least and greatest value) beside each seed's value. Nothing is rounded before the mean: the
// figures are those of the per-seed tables the experiment wrote.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hetsched/experiments/experiment.h"
#include "hetsched/util/status.h"

namespace hetsched {

// Parses a seed list: comma-separated seeds and inclusive ranges, e.g. "1-3", "1,2,5", "1-3,7".
// At most 1,000 seeds, no seed twice, each a whole number >= 0.
Result<std::vector<unsigned long long>> ParseSeedList(std::string_view text);

// A table as an experiment writes it: a header and rows of plain comma-separated fields.
struct ExperimentTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

// Reads <path>; every row must have the header's number of fields (the error names file and line).
Result<ExperimentTable> ReadExperimentTable(const std::string& path);

struct SeedColumn {
  std::string name;
  bool varies = false;   // differs between seeds in at least one row
  bool numeric = false;  // every value of the column parses as a number
};

struct SeedSummary {
  std::vector<unsigned long long> seeds;
  std::vector<SeedColumn> columns;
  // values[row][column][seed index]: the per-seed text, as each table has it.
  std::vector<std::vector<std::vector<std::string>>> values;
};

// Lines the per-seed tables up row by row. They must have the same header and number of rows
// (the same configuration run with other seeds); the error says which seed's table differs.
Result<SeedSummary> SummariseSeeds(const std::vector<unsigned long long>& seeds,
                                   const std::vector<ExperimentTable>& tables);

// The mean, sample standard deviation (0 for one seed), least and greatest of a numeric column's
// values in one row.
struct SeedStats {
  double mean = 0, sd = 0, min = 0, max = 0;
};
SeedStats StatsOf(const std::vector<std::string>& values);

// <NAME>_seeds.csv: the steady columns once; per varying column C: C_mean, C_sd, C_min, C_max
// (numeric columns only) and C_seed<N> per seed. Least and greatest are the tables' own text;
// mean and deviation carry one digit more than the row's values (the most among them).
std::string FormatSeedSummaryCsv(const SeedSummary& summary);
// A table for people: steady columns as they are, a varying numeric column as
// "mean (least..greatest)" (the mean with the row's values' digits, at least one), or its one
// value where the row has the same on every seed; a varying text column as its per-seed values
// joined by '/'.
std::string FormatSeedSummaryText(const SeedSummary& summary);

// Runs `experiment` once per seed under ctx.out_dir/seed-<N>/ (ctx.seed is ignored), then writes
// and prints the summary of each seed's <name>.csv. ctx.headline gets each seed's headline.
Status RunExperimentOverSeeds(Experiment& experiment, ExperimentContext& ctx,
                              const std::vector<unsigned long long>& seeds);

}  // namespace hetsched
