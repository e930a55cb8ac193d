from django.urls import path

from accounts import views

urlpatterns = [
    path("settings/", views.settings_view, name="account_settings"),
    path("settings/feed-token/", views.rotate_feed_token, name="account_rotate_feed_token"),
    path("settings/api-tokens/", views.api_token_create, name="account_api_token_create"),
    path(
        "settings/api-tokens/<int:pk>/revoke/",
        views.api_token_revoke,
        name="account_api_token_revoke",
    ),
    path("delete/", views.delete_account, name="account_delete"),
    path("time-zone/", views.set_time_zone, name="account_time_zone"),
    path("language/", views.set_language, name="set_language"),
    path("theme/", views.set_theme, name="set_theme"),
]
