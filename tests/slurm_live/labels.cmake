# Included by ctest (TEST_INCLUDE_FILES, after the tests gtest_discover_tests found in
# tests_slurm_live): labels them `slurm` and `slow`, so that `ctest -L slurm` selects them and the
# ASan run (`--label-exclude slow`) skips them.
foreach(test_name IN LISTS tests_slurm_live_TESTS)
  set_tests_properties("${test_name}" PROPERTIES LABELS "slurm;slow")
endforeach()
