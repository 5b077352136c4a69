// placeholder: implemented by the owner of this module
