// Internal to policies/pollux/: NSGA-II over integer vectors with the problem's own operators, as
// pymoo 0.4.2 runs it for Pollux's policy [SRC: Deb et al., "A fast and elitist multiobjective
// genetic algorithm: NSGA-II", IEEE TEC 2002; the loop as anyoptimization/pymoo @ 0.4.2 (Apache-2.0)
// runs it: algorithms/genetic_algorithm.py, algorithms/nsga2.py, model/mating.py,
// model/initialization.py, model/duplicate.py, operators/selection/tournament_selection.py]:
//  - the first population is the sampling given (repaired, duplicates dropped), evaluated and
//    ranked; then `generations - 1` times: `pop_size` offspring (each mating: two parents, each the
//    winner of a binary tournament: the dominating one, else the one with the larger crowding
//    distance, else either at random; crossover with probability `crossover_prob`, else copies;
//    every child mutated, then repaired; a child equal to a member or an earlier child is dropped,
//    and mating repeats, at most `max_infills` + 1 times, until enough), evaluated; the union is
//    cut back to `pop_size` by non-dominated rank, the last front by descending crowding distance
//    (ties in a random order);
//  - the result is the final population's first front, in population order.
// Crowding distance as pymoo computes it: inf on fronts of at most two points; otherwise duplicates
// (equal objectives) after the first get 0, and each unique point gets the mean over objectives of
// the normalised gap between its neighbours (inf at the ends; 0 for an objective with no spread).
// Non-dominated sorting: a sweep for two objectives, Deb's pairwise sort with pagmo's dominance for
// more (the same fronts; a test holds them equal). Randomness is the caller's Rng:
// runs repeat for a seed; pymoo's stream is numpy's global one, so a run equals the peer's only in
// distribution, not draw for draw.
#pragma once

#include <functional>
#include <vector>

#include "hetsched/util/rng.h"

namespace hetsched::pollux_internal {

using Genome = std::vector<int>;

struct Nsga2Operators {
  // Objectives of an individual, all minimised (the same count for every individual).
  std::function<std::vector<double>(const Genome&)> evaluate;
  // Two parents in, two children out (in place).
  std::function<void(Genome&, Genome&, Rng&)> crossover;
  std::function<void(Genome&, Rng&)> mutate;
  std::function<void(Genome&, Rng&)> repair;
};

struct Nsga2Options {
  int pop_size = 100;
  int generations = 100;  // the first population counts as one (pymoo's n_gen)
  double crossover_prob = 0.9;
  int max_infills = 100;
};

struct Nsga2Front {
  std::vector<Genome> x;
  std::vector<std::vector<double>> f;
};

// REQUIRES: sampling not empty.
Nsga2Front RunNsga2(const std::vector<Genome>& sampling, const Nsga2Options& options, const Nsga2Operators& ops,
                    Rng& rng);

// Exposed for tests: non-dominated fronts (indices, each front in index order) and pymoo's
// crowding distance of one front's objective vectors.
std::vector<std::vector<size_t>> NonDominatedFronts(const std::vector<std::vector<double>>& f);
std::vector<double> CrowdingDistance(const std::vector<std::vector<double>>& f);

}  // namespace hetsched::pollux_internal
