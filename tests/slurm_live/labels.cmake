# Included by ctest (TEST_INCLUDE_FILES, after the tests gtest_discover_tests found in
# tests_slurm_live): labels them `slurm`, `slow` and `live`, so that `ctest -L slurm` selects them
# with the agent's FakeSlurm tests, `-L '^live$'` them alone (.ci/run runs them beside its ASan
# build), and the ASan run (`--label-exclude slow`) skips them.
foreach(test_name IN LISTS tests_slurm_live_TESTS)
  set_tests_properties("${test_name}" PROPERTIES LABELS "slurm;slow;live")
endforeach()
