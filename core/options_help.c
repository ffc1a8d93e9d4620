/* core/options_help.c: the option list for people: -help's text (a head
 * "-name <values>" and the help word-wrapped to 100 columns) and the
 * Markdown table of doc/user-guide.md's option reference (nagare-solve
 * -help-markdown), both in the registry's order (core/options.h). */
#include "core.h"

/* -help layout: "  -name <type>" in a column of NG_HELP_HEAD characters, then the
 * help text (and the default) word-wrapped so that no line is longer than
 * NG_HELP_WIDTH; continuation lines are indented to the text's column. A
 * head wider than its column puts the text on the next line. */
#define NG_HELP_WIDTH 100
#define NG_HELP_HEAD 33

/* Writes the words of text, starting at column *col, wrapping at
 * NG_HELP_WIDTH onto lines indented by NG_HELP_HEAD. */
static void put_wrapped(FILE *f, const char *text, int *col)
{
  for (const char *w = text; *w;) {
    while (*w == ' ') w++;
    if (!*w) break;
    int len = (int)strcspn(w, " ");
    if (*col > NG_HELP_HEAD && *col + 1 + len > NG_HELP_WIDTH) {
      fprintf(f, "\n%*s", NG_HELP_HEAD, "");
      *col = NG_HELP_HEAD;
    }
    if (*col > NG_HELP_HEAD) { fputc(' ', f); (*col)++; }
    fwrite(w, 1, (size_t)len, f);
    *col += len;
    w += len;
  }
}

ng_status ng_options_print_help(ng_options o, void *file)
{
  FILE *f = file ? (FILE *)file : stdout;
  NG_ASSERT_ARG(o, "ng_options_print_help: null options");
  fprintf(f, "nagare options (-name <values or type>, what it does, the default and any value set):\n");
  for (int i = 0; i < ng_options_count(o); i++) {
    const char *name, *value, *def, *help;
    char head[96], tail[160];
    NG_CHECK(ng_options_info(o, i, &name, &value, &def, &help));
    int col = snprintf(head, sizeof(head), "  -%s <%s>", name, ng_options_values(o, i));
    fputs(head, f);
    if (col > NG_HELP_HEAD - 1) fputc('\n', f), col = 0;
    fprintf(f, "%*s", NG_HELP_HEAD - col, "");
    col = NG_HELP_HEAD;
    put_wrapped(f, help, &col);
    if (strcmp(def, value))
      snprintf(tail, sizeof(tail), "(default \"%s\", set to \"%s\")", def, value);
    else
      snprintf(tail, sizeof(tail), "(default \"%s\")", def);
    put_wrapped(f, tail, &col);
    fputc('\n', f);
  }
  return NG_SUCCESS;
}

/* s with every '|' written "\|" (a Markdown table's cell separator). */
static void put_cell(FILE *f, const char *s)
{
  for (; *s; s++) {
    if (*s == '|') fputc('\\', f);
    fputc(*s, f);
  }
}

ng_status ng_options_print_markdown(ng_options o, void *file)
{
  FILE *f = file ? (FILE *)file : stdout;
  NG_ASSERT_ARG(o, "ng_options_print_markdown: null options");
  fprintf(f, "| option | values | default | meaning |\n| --- | --- | --- | --- |\n");
  for (int i = 0; i < ng_options_count(o); i++) {
    const char *name, *def, *help;
    NG_CHECK(ng_options_info(o, i, &name, NULL, &def, &help));
    fprintf(f, "| `-%s` | `", name);
    put_cell(f, ng_options_values(o, i));
    fputs(*def ? "` | `" : "` | ", f);
    put_cell(f, def);
    fputs(*def ? "` | " : " | ", f);
    put_cell(f, help);
    fputs(" |\n", f);
  }
  return NG_SUCCESS;
}
