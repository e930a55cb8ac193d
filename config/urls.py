from django.conf import settings
from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from django.views.generic import RedirectView

from accounts.forms import AdminLoginForm
from accounts.views import mailbox, mailbox_body
from config.api import api, unknown_endpoint


class Favicon(RedirectView):
    """Browsers ask /favicon.ico of every page: the app's icon, its static URL worked out per
    request (a manifest storage knows it only once collectstatic has run)."""

    def get_redirect_url(self, *args: object, **kwargs: object) -> str:
        return static("icons/icon-192.png")


admin.site.site_header = format_lazy(_("{site} administration"), site=settings.SITE_NAME)
admin.site.site_title = format_lazy(_("{site} admin"), site=settings.SITE_NAME)
# Wrong admin passwords spend the same rate limits as the allauth login.
admin.site.login_form = AdminLoginForm

urlpatterns = [
    # Browsers ask for it on pages that name no icon (the admin's, a mail's frame).
    path("favicon.ico", Favicon.as_view(permanent=True)),
    path("admin/", admin.site.urls),
    path("accounts/", include("allauth.urls")),
    path("account/", include("accounts.urls")),
    path("mailbox/", mailbox, name="mailbox"),
    path("mailbox/<str:file>/<int:number>/", mailbox_body, name="mailbox_body"),
    path("ops/", include("ops.urls")),
    path("api/", api.urls),
    re_path(r"^api/(?P<rest>.*)$", unknown_endpoint),
    path("", include("clipping.urls")),
]
