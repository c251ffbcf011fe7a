# SPDX-License-Identifier: Apache-2.0
# cmake -DAR=<ar> -DOUTPUT=<lib.a> -DINPUTS=<a.a;b.a;...> -P MergeArchives.cmake
# Writes one static archive holding every object of the input archives (ar's MRI script).
set(script "create ${OUTPUT}.tmp\n")
foreach(lib ${INPUTS})
  string(APPEND script "addlib ${lib}\n")
endforeach()
string(APPEND script "save\nend\n")
file(WRITE ${OUTPUT}.mri "${script}")
file(REMOVE ${OUTPUT}.tmp)
execute_process(COMMAND ${AR} -M INPUT_FILE ${OUTPUT}.mri RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "merging archives into ${OUTPUT} failed: ${err}")
endif()
file(RENAME ${OUTPUT}.tmp ${OUTPUT})
