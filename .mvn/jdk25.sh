# Finds a JDK 25 for ./mvnw, ./squall and .ci/run, whatever JAVA_HOME and the java on PATH are.
# POSIX sh, meant to be sourced; squall_use_jdk25 exports JAVA_HOME (and puts its bin first on PATH), or prints
# one line saying how to get a JDK 25 and returns 1.
#
# Looks, in order, at: JAVA_HOME, the java on PATH, then each directory of SQUALL_JDK_SEARCH (default: the
# usual install places on Linux and macOS). A JDK counts when its java reports version 25 or later.

squall_java_major() { # prints the feature version of the java at $1 (e.g. 25), or nothing
  "$1" -version 2>&1 | sed -n 's/^.* version "\([0-9][0-9]*\).*$/\1/p' | head -n 1
}

squall_is_jdk25() { # whether $1 is a JDK home whose java is 25 or later
  [ -n "$1" ] && [ -x "$1/bin/java" ] || return 1
  squall_major=$(squall_java_major "$1/bin/java")
  [ -n "$squall_major" ] && [ "$squall_major" -ge 25 ]
}

squall_use_jdk25() {
  squall_found=
  if squall_is_jdk25 "${JAVA_HOME:-}"; then
    squall_found=$JAVA_HOME
  else
    squall_path_java=$(command -v java 2>/dev/null || true)
    if [ -n "$squall_path_java" ]; then
      squall_path_home=$(cd "$(dirname "$(readlink -f "$squall_path_java" 2>/dev/null || echo "$squall_path_java")")/.." && pwd)
      if squall_is_jdk25 "$squall_path_home"; then
        squall_found=$squall_path_home
      fi
    fi
  fi
  if [ -z "$squall_found" ]; then
    case $- in *f*) squall_noglob=1; set +f ;; *) squall_noglob= ;; esac
    for squall_candidate in ${SQUALL_JDK_SEARCH:-/usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*25* /Library/Java/JavaVirtualMachines/*25*/Contents/Home}; do
      if squall_is_jdk25 "$squall_candidate"; then
        squall_found=$squall_candidate
        break
      fi
    done
    [ -z "$squall_noglob" ] || set -f
  fi
  if [ -z "$squall_found" ]; then
    echo "squall: needs a JDK 25 and found none (JAVA_HOME, the java on PATH and /usr/lib/jvm have older ones or none); install one, e.g. 'sudo apt-get install temurin-25-jdk' (Adoptium's apt repository) or a download from https://adoptium.net/, then set JAVA_HOME to it" >&2
    return 1
  fi
  JAVA_HOME=$squall_found
  PATH="$JAVA_HOME/bin:$PATH"
  export JAVA_HOME PATH
}
