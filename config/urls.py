from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from accounts.forms import AdminLoginForm
from accounts.views import mailbox
from config.api import api, unknown_endpoint

admin.site.site_header = format_lazy(_("{site} administration"), site=settings.SITE_NAME)
admin.site.site_title = format_lazy(_("{site} admin"), site=settings.SITE_NAME)
# Wrong admin passwords spend the same rate limits as the allauth login.
admin.site.login_form = AdminLoginForm

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("allauth.urls")),
    path("account/", include("accounts.urls")),
    path("mailbox/", mailbox, name="mailbox"),
    path("ops/", include("ops.urls")),
    path("api/", api.urls),
    re_path(r"^api/(?P<rest>.*)$", unknown_endpoint),
    path("", include("clipping.urls")),
]
