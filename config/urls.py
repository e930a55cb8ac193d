from django.contrib import admin
from django.urls import include, path

from accounts.forms import AdminLoginForm
from accounts.views import mailbox

admin.site.site_header = "Webclip administration"
admin.site.site_title = "Webclip admin"
# Wrong admin passwords spend the same rate limits as the allauth login.
admin.site.login_form = AdminLoginForm

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("allauth.urls")),
    path("account/", include("accounts.urls")),
    path("mailbox/", mailbox, name="mailbox"),
    path("ops/", include("ops.urls")),
    path("", include("clipping.urls")),
]
