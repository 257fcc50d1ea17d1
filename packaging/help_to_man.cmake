# Writes a roff man page from a program's --help (and, for a CLI with subcommands, each
# subcommand's --help): help2man is not in the build dependencies. Run as
#   cmake -DPROGRAM=<exe> -DNAME=<name> -DSUMMARY=<one line> -DOUT=<file.1> [-DSUBCOMMANDS=ON]
#         [-DCOMPLETION=<bash completion file>] -P help_to_man.cmake
set(ENV{QT_QPA_PLATFORM} offscreen)  # the GUI's --help needs no display

function(run_help out)
  execute_process(COMMAND "${PROGRAM}" ${ARGN} --help OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(text STREQUAL "")
    set(text "${err}")
  endif()
  string(REPLACE "${PROGRAM}" "${NAME}" text "${text}")  # the build path means nothing once installed
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# roff: a backslash is \e, and a line must not start with '.' or '\''.
function(roff_escape out text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

run_help(main_help)
string(TOUPPER "${NAME}" upper)
string(TIMESTAMP today "%Y-%m-%d" UTC)
roff_escape(main_roff "${main_help}")
set(page ".TH ${upper} 1 \"${today}\" \"MixerLab\" \"User Commands\"\n.SH NAME\n${NAME} \\- ${SUMMARY}\n")
string(APPEND page ".SH DESCRIPTION\n.nf\n${main_roff}\n.fi\n")

set(subcommands "")
if(SUBCOMMANDS)
  # CLI11 lists them under "Subcommands:" as "  name    description".
  string(REGEX MATCH "Subcommands:\n.*" listing "${main_help}")
  string(REPLACE "\n" ";" lines "${listing}")
  foreach(line IN LISTS lines)
    if(line MATCHES "^  ([a-z][a-z-]*) ")
      list(APPEND subcommands "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  string(APPEND page ".SH COMMANDS\n")
  foreach(sub IN LISTS subcommands)
    run_help(sub_help "${sub}")
    roff_escape(sub_roff "${sub_help}")
    string(APPEND page ".SS ${NAME} ${sub}\n.nf\n${sub_roff}\n.fi\n")
  endforeach()
endif()
string(APPEND page ".SH SEE ALSO\nThe README and docs/ of the MixerLab sources.\n")
file(WRITE "${OUT}" "${page}")

if(COMPLETION)
  # Bash completion: the subcommands first, then the options each one's --help lists.
  string(REPLACE ";" " " subcommand_words "${subcommands}")
  set(script "# bash completion for ${NAME} (generated from --help)\n_${NAME}() {\n")
  string(APPEND script "  local cur=\${COMP_WORDS[COMP_CWORD]} sub=\${COMP_WORDS[1]}\n")
  string(APPEND script "  if [[ \$COMP_CWORD -eq 1 ]]; then COMPREPLY=( \$(compgen -W \"${subcommand_words}\" -- \"\$cur\") ); return; fi\n")
  string(APPEND script "  case \"\$sub\" in\n")
  foreach(sub IN LISTS subcommands)
    run_help(sub_help "${sub}")
    string(REGEX MATCHALL "--[a-z][a-z0-9-]*" options "${sub_help}")
    list(REMOVE_DUPLICATES options)
    string(REPLACE ";" " " options "${options}")
    # Its own subcommands (retrieval build|train|..., bench train|...), when it has some.
    string(REGEX MATCH "Subcommands:\n.*" sub_listing "${sub_help}")
    set(nested "")
    string(REPLACE "\n" ";" sub_lines "${sub_listing}")
    foreach(line IN LISTS sub_lines)
      if(line MATCHES "^  ([a-z][a-z-]*) ")
        string(APPEND nested " ${CMAKE_MATCH_1}")
      endif()
    endforeach()
    string(APPEND script "    ${sub}) COMPREPLY=( \$(compgen -W \"${options}${nested}\" -- \"\$cur\") ) ;;\n")
  endforeach()
  string(APPEND script "    *) COMPREPLY=( \$(compgen -f -- \"\$cur\") ) ;;\n  esac\n}\ncomplete -o default -F _${NAME} ${NAME}\n")
  file(WRITE "${COMPLETION}" "${script}")
endif()
