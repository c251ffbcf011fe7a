# SPDX-License-Identifier: Apache-2.0
# `pip install` of the checkout as docs/library.md describes it (no build isolation, nothing
# downloaded), into a scratch folder, reusing this build tree for the extension; then the
# package imports from there and runs a model.
# cmake -DPYTHON=... -DSOURCE_DIR=... -DBUILD_DIR=... -DWORK_DIR=... -DMODEL=... -P pip_install_test.cmake
file(REMOVE_RECURSE ${WORK_DIR})
set(ENV{OPENVGF_CMAKE_BUILD_DIR} ${BUILD_DIR})
execute_process(COMMAND ${PYTHON} -m pip install --no-build-isolation --no-deps --no-index --target ${WORK_DIR}/site
                        ${SOURCE_DIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pip install failed (${rc}):\n${out}\n${err}")
endif()
set(ENV{PYTHONPATH} ${WORK_DIR}/site)
set(ENV{XDG_CACHE_HOME} ${WORK_DIR}/cache)
execute_process(COMMAND ${PYTHON} -c
  "import numpy as np, openvgf; assert openvgf.__file__.startswith('${WORK_DIR}/site'), openvgf.__file__; s = openvgf.Session('${MODEL}'); print(s.run([np.ones(t['shape'], t['dtype']) for t in s.inputs])[0].ravel()[:4])"
  WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\\[2\\. 2\\. 2\\. 2\\.\\]")
  message(FATAL_ERROR "the installed package did not run the model (${rc}):\n${out}\n${err}")
endif()
file(REMOVE_RECURSE ${WORK_DIR})
