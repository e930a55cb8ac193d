"""The dashboard's scripts survive production static collection (hashed names in a manifest)."""

from __future__ import annotations

import json

from django.core.management import call_command
from django.test import override_settings

# Production uses WhiteNoise's compressing subclass of this storage; compressing every file
# takes many seconds and is WhiteNoise's business, so the manifest part is what is tested.
PRODUCTION_STATIC = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"},
}


def test_collectstatic_hashes_chartjs_and_the_dashboard_script(tmp_path):
    with override_settings(STATIC_ROOT=tmp_path, STORAGES=PRODUCTION_STATIC):
        call_command("collectstatic", interactive=False, verbosity=0)

    paths = json.loads((tmp_path / "staticfiles.json").read_text())["paths"]
    for name in ("vendor/chartjs/chart.umd.min.js", "js/ops.js", "css/ops.css"):
        hashed = paths[name]
        assert hashed != name and (tmp_path / hashed).is_file()
