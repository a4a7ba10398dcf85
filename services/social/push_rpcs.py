"""SocialService's push RPCs (RegisterPushToken, UnregisterPushToken, Get/UpdateNotificationSettings,
ForgetPushToken): a mixin of SocialServicer, which gives it ``self.pushes``, ``self._caller``
and the status mapping. (Being built: issue 36.)"""

from __future__ import annotations


class PushRpcs:
    pass
