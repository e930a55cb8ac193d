from django.db import migrations

# The words of a clip's title and summary, stored: a search for a common word walks the newest
# clips and tests each one, and computing to_tsvector per row there cost more than the rest of
# the page. A generated column is kept by PostgreSQL itself on every insert and update, so no
# code writes it and the model does not declare it. PostgreSQL only; SQLite searches with LIKE.
# clipping/search.py (CLIP_TEXT) names the column.
FORWARD = [
    "DROP INDEX IF EXISTS clipping_clip_text_search",
    "ALTER TABLE clipping_clip ADD COLUMN IF NOT EXISTS search_words tsvector GENERATED ALWAYS AS "
    "(to_tsvector('simple'::regconfig, title || ' ' || summary)) STORED",
    "CREATE INDEX IF NOT EXISTS clipping_clip_search_words ON clipping_clip USING gin (search_words)",
]
BACKWARD = [
    "DROP INDEX IF EXISTS clipping_clip_search_words",
    "ALTER TABLE clipping_clip DROP COLUMN IF EXISTS search_words",
    "CREATE INDEX IF NOT EXISTS clipping_clip_text_search ON clipping_clip "
    "USING gin (to_tsvector('simple'::regconfig, title || ' ' || summary))",
]


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for statement in FORWARD:
            schema_editor.execute(statement)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for statement in BACKWARD:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("clipping", "0005_personal_page_indexes")]

    operations = [migrations.RunPython(forward, backward)]
