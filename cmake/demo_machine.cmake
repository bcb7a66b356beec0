# The demonstration machine: a folder laid out as a fresh WSL2 Ubuntu 24.04
# distribution on a Windows PC with an AMD GPU, for the README's first
# command (`wslgpu-setup --root build/demo-machine plan --offline`). It shows
# what `install` would do on the machine the tool is for, while the build
# machine itself is never touched: every path the tool reads or would write
# is under --root.
#
#   cmake -DROOT=FOLDER -P cmake/demo_machine.cmake
#
# The build runs it into build/demo-machine (CMakeLists.txt, target
# demo-machine); the black-box test tests/blackbox/test_readme_demo.cpp runs
# it into a folder of its own. FOLDER is made anew each time.
#
# What WSL gives a distribution, and what the tool reads of it:
#   /proc/sys/kernel/osrelease  Microsoft's kernel (the "-microsoft-standard-WSL2" suffix)
#   /proc/cpuinfo               the VM's 16 logical CPUs
#   /dev/dxg                    the GPU paravirtualization device; a character
#                               device only root can make (else a plain file,
#                               which the tool does not take for the device)
#   /usr/lib/wsl/lib/           the Windows driver's user-mode libraries (libdxcore.so)
#   /usr/lib/wsl/drivers/u0…/   AMD's Windows driver store folder ("u0" INF names
#                               are AMD's), so that a plan without a profile
#                               chooses rocm
#   /etc/os-release             Ubuntu 24.04 (noble)
#   /etc/passwd, /etc/group     root, and the user alice (uid 1000)
#   /mnt/c/Users/alice/.wslconfig  the Windows side's WSL settings, as a user
#                               may have written them (8 GB of memory)
#   /var/lib/dpkg/status        empty: nothing of ROCm installed yet
# Nothing in it can run: plans of it ask no server (--offline) and run
# no program of the folder.
cmake_minimum_required(VERSION 3.25)
if(NOT ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=FOLDER -P cmake/demo_machine.cmake")
endif()

file(REMOVE_RECURSE "${ROOT}")

function(demo_file path content)
  file(WRITE "${ROOT}${path}" "${content}")
endfunction()

demo_file(/proc/sys/kernel/osrelease "6.6.87.2-microsoft-standard-WSL2\n")
# The WSL VM's 16 logical CPUs (the wslconfig profile reads how many there
# are before it raises "processors"); only the lines it reads.
set(cpuinfo "")
foreach(cpu RANGE 15)
  string(APPEND cpuinfo "processor\t: ${cpu}\nmodel name\t: AMD Ryzen 7 7840HS w/ Radeon 780M Graphics\n\n")
endforeach()
demo_file(/proc/cpuinfo "${cpuinfo}")
demo_file(/etc/os-release [=[PRETTY_NAME="Ubuntu 24.04.3 LTS"
NAME="Ubuntu"
VERSION_ID="24.04"
VERSION="24.04.3 LTS (Noble Numbat)"
VERSION_CODENAME=noble
ID=ubuntu
ID_LIKE=debian
UBUNTU_CODENAME=noble
]=])
demo_file(/etc/passwd [=[root:x:0:0:root:/root:/bin/bash
daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin
alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash
]=])
demo_file(/etc/group "root:x:0:\ndaemon:x:1:\nvideo:x:44:\nrender:x:993:\nalice:x:1000:\n")
# wsl.conf as `wsl --install` leaves it: the user WSL logs in as.
demo_file(/etc/wsl.conf "[boot]\nsystemd=true\n\n[user]\ndefault=alice\n")
demo_file(/var/lib/dpkg/status "")
demo_file(/usr/lib/wsl/lib/libdxcore.so "")
demo_file(/usr/lib/wsl/drivers/u0417839.inf_amd64_3b6c2d4fa97e1c05/amdxc64.so "")
demo_file(/mnt/c/Users/alice/.wslconfig "[wsl2]\nmemory=8GB\nprocessors=4\n")
file(MAKE_DIRECTORY "${ROOT}/home/alice" "${ROOT}/mnt/c/Users/Public" "${ROOT}/dev")

execute_process(COMMAND mknod -m 0666 "${ROOT}/dev/dxg" c 1 3 RESULT_VARIABLE made ERROR_QUIET)
if(NOT made EQUAL 0)
  demo_file(/dev/dxg "")
  message(STATUS "demo machine: /dev/dxg is a plain file (only root can make a device), "
                 "so its plans say that /dev/dxg is missing")
endif()
